// Package typeswitchinterface names an interface type in a type switch
// case, which the interpreter never matches.
package typeswitchinterface

import (
	"errors"
	"fmt"
)

func Main() {
	var v any = errors.New("e")
	switch x := v.(type) {
	case string:
		fmt.Println("string", x)
	case error: // refused: type switch case naming an interface type
		fmt.Println("error", x)
	}
}
