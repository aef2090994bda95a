package pyrun

// EntryName implements faultsim.EntryNamer: the report names the
// coroutine function the user defined (the binding's Entry), not the
// kit's Go entry point.
func (p *Program) EntryName() string { return p.bind.Entry }
