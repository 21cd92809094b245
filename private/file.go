package private

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Create creates the new private file path (mode 0600) with data: it
// fails when anything is at path already (a file or a symbolic link,
// which is never followed), so what is written is what is read back. The
// file is checked after it was written.
func Create(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return &Error{path, "exists already, and tmuxmcp writes this file only afresh (something put it there)", "remove it (rm " + path + ") and look at who could write in " + filepath.Dir(path)}
		}
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := fill(f, data); err != nil {
		_ = os.Remove(path)
		return err
	}
	return nil
}

// WriteFile replaces path with a private file (mode 0600) holding data:
// written to a new temporary file beside it, then renamed over it, so a
// reader sees the old file or the new one and nothing at path is
// followed or reused.
func WriteFile(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	if err := fill(f, data); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// fill sets a new file's mode to 0600 exactly, writes data, checks the
// file and closes it.
func fill(f *os.File, data []byte) error {
	err := f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = CheckOpen(f)
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	var pe *Error
	if err != nil && !errors.As(err, &pe) { // a refusal names the file
		return fmt.Errorf("write %s: %w", f.Name(), err)
	}
	return err
}

// OpenFile opens path with flag (os.O_CREATE for a new file made with
// mode 0600), never through a symbolic link, and checks that what it
// opened is a private file of the user's.
func OpenFile(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, &Error{path, "a symbolic link where tmuxmcp keeps a file of its own", "remove it (rm " + path + ")"}
		}
		return nil, err
	}
	if err := CheckOpen(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// CheckOpen checks an open file is a private file of the user's.
func CheckOpen(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return Me().PrivateFile(entryOf(f.Name(), st))
}

// CheckFile checks path is a private file of the user's, without
// following a symbolic link.
func CheckFile(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	return Me().PrivateFile(entryOf(path, st))
}
