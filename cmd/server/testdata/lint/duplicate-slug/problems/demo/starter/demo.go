package demo

// Demo does nothing yet.
func Demo() {}
