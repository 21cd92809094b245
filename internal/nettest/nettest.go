// Package nettest gives tests a listener on the host's loopback, to tell
// whether a sandboxed process can reach it. It knows nothing of tmux.
package nettest

import (
	"net"
	"testing"
)

// Greeter listens on 127.0.0.1 until the test ends, writes greeting to
// every connection and closes it, and returns the port.
func Greeter(t *testing.T, greeting string) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte(greeting + "\n"))
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}
