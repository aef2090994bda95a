// A function type that returns itself crashed the interpreter's compiler
// with "reflect.Type is nil" and no line.
package recursive

type state func(string) state // refused: refers to itself

func start(s string) state { return nil }

func Main() { _ = start("x") }
