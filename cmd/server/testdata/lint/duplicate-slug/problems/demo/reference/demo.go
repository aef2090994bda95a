package demo

// Demo does nothing, correctly.
func Demo() {}
