package shell

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// Proc is where a probe reads a machine's processes and terminals: this
// machine's /proc and terminals (ProbePane), or a snapshot of another
// machine's taken in one round trip (SnapshotScript, ParseSnapshot).
type Proc interface {
	// ReadFile returns the contents of a file, like os.ReadFile.
	ReadFile(name string) ([]byte, error)
	// Readlink returns the target of a symbolic link, like os.Readlink.
	Readlink(name string) (string, error)
	// ReadDir returns the names in a directory, sorted, like os.ReadDir.
	ReadDir(name string) ([]string, error)
	// Termios reports the local modes of terminal tty: whether it is in
	// canonical mode (ICANON), echoes (ECHO) and turns C-c into SIGINT
	// (ISIG).
	Termios(tty string) (canonical, echo, isig bool, err error)
	// Arch is the architecture, as a GOARCH ("amd64", "arm64"), whose
	// system call numbers /proc/PID/syscall holds; "" when unknown.
	Arch() string
}

// localProc is this machine's /proc and terminals.
type localProc struct{}

func (localProc) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

func (localProc) Readlink(name string) (string, error) { return os.Readlink(name) }

func (localProc) ReadDir(name string) ([]string, error) {
	entries, err := os.ReadDir(name)
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, err
}

func (localProc) Arch() string { return runtime.GOARCH }

// Termios asks the kernel (TCGETS) without making tty the caller's
// controlling terminal or waiting for it.
func (localProc) Termios(tty string) (canonical, echo, isig bool, err error) {
	fd, err := syscall.Open(tty, syscall.O_RDONLY|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false, false, false, fmt.Errorf("open terminal %s: %w", tty, err)
	}
	defer syscall.Close(fd)
	var t syscall.Termios
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TCGETS, uintptr(unsafe.Pointer(&t))); e != 0 {
		return false, false, false, fmt.Errorf("read terminal mode of %s: %w", tty, e)
	}
	return t.Lflag&syscall.ICANON != 0, t.Lflag&syscall.ECHO != 0, t.Lflag&syscall.ISIG != 0, nil
}
