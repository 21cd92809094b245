// Package leaktest is the goroutine-leak check every package's TestMain
// runs, with the one list of goroutines that may outlive the tests. It
// exists so that list is kept in one place; packages whose tests start tmux
// servers use it through tmuxtest.Main.
package leaktest

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// ignored are the goroutines that may outlive a test run: regexp2 starts
// one clock for all its match timeouts and never stops it.
func ignored() []goleak.Option {
	return []goleak.Option{goleak.IgnoreAnyFunction("github.com/dlclark/regexp2.runClock")}
}

// Run runs the package's tests and, when they passed, checks that no
// goroutine is left running. It returns the exit code for os.Exit.
func Run(m *testing.M) int {
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(ignored()...); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	return code
}

// Main runs the package's tests with Run and exits with its code. Use it
// as TestMain's only line.
func Main(m *testing.M) { os.Exit(Run(m)) }
