//go:build !linux

package sandbox

import "errors"

// Confinement reports that nothing confines a child off Linux.
func Confinement() ConfinementReport {
	const why = "the kernel is not Linux"
	return ConfinementReport{LandlockErr: why, SeccompErr: why, NamespacesErr: why}
}

func applyConfinement(req confineRequest) error {
	return errors.New("confinement needs Linux")
}

func execProgram(argv []string) error { return errors.New("confinement needs Linux") }

func dynamicLinking(exe string) (string, []string) { return "", nil }

// StackedFilter has nothing to stack off Linux.
func StackedFilter(exec, spawn bool, more ...string) ([]byte, error) {
	return nil, errors.New("confinement needs Linux")
}
