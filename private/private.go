// Package private makes and checks the directories and files that only
// the user running tmuxmcp may touch: its state directory and everything
// in it (job records and scripts, outputs, the HTTP token, the popups'
// files), here and, through Entry and ParseLS, on a remote host.
//
// The rules, one place for every caller:
//   - a private directory (the state directory and every directory in it)
//     is a directory owned by the user (the effective uid: as root, root)
//     that neither its group nor others may write; a symbolic link to one
//     is accepted when the link itself is the user's or root's. tmuxmcp
//     makes the ones it creates with mode 0700, each missing parent too;
//   - each existing parent of a private directory is owned by the user or
//     root, and others may write it only when it is sticky (/tmp): else
//     another user could rename the directory away and put theirs in its
//     place. Its group may write it when that is the user's own private
//     group (a group named like the user: umask 002 distributions);
//   - a private file is a regular file of the user's that neither group
//     nor others may read or write; tmuxmcp creates each with mode 0600,
//     exclusively (O_EXCL, never through a symbolic link), and checks it
//     after it was opened.
//
// It knows nothing of tmux, MCP, jobs or shells.
package private

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// Error is a path that cannot be used: what was found and the fix.
type Error struct {
	Path    string
	Problem string // what is wrong, with the owner and mode found
	Fix     string // what the user does about it
}

// Error is "PATH: PROBLEM; FIX".
func (e *Error) Error() string { return e.Path + ": " + e.Problem + "; " + e.Fix }

// User is who the checks are made for: the owner every private path must
// have.
type User struct {
	UID, GID int
	// OwnGroup is the user's primary group when it is theirs alone (named
	// like the user), -1 when it is not, unknownGroup when not looked up
	// yet (Me: looked up when a parent's group may write it).
	OwnGroup int
}

// unknownGroup is a User's OwnGroup before it was looked up.
const unknownGroup = -2

// Me is the user running tmuxmcp (effective ids: the owner of the files
// it creates).
func Me() User { return User{UID: os.Geteuid(), GID: os.Getegid(), OwnGroup: unknownGroup} }

// ownGroup is u's OwnGroup, looked up in the user and group databases
// when unknown.
func (u User) ownGroup() int {
	if u.OwnGroup != unknownGroup {
		return u.OwnGroup
	}
	cur, err := user.LookupId(strconv.Itoa(u.UID))
	if err != nil {
		return -1
	}
	if g, err := user.LookupGroupId(strconv.Itoa(u.GID)); err == nil && g.Name == cur.Username {
		return u.GID
	}
	return -1
}

// Entry is what is known of one path: from lstat(2) here, from ls -ldn
// on a remote host.
type Entry struct {
	Path     string
	Dir      bool // a directory
	Regular  bool // a regular file
	Link     bool // a symbolic link (not followed)
	UID, GID int
	Perm     fs.FileMode // permission bits and the sticky bit
}

// entryOf is path's Entry from info (lstat or stat).
func entryOf(path string, info fs.FileInfo) Entry {
	e := Entry{Path: path, Dir: info.IsDir(), Regular: info.Mode().IsRegular(), Link: info.Mode()&fs.ModeSymlink != 0,
		Perm: info.Mode() & (fs.ModePerm | fs.ModeSticky), UID: -1, GID: -1}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		e.UID, e.GID = int(st.Uid), int(st.Gid)
	}
	return e
}

// mode is how an entry's owner and mode read in messages.
func (e Entry) mode() string {
	return fmt.Sprintf("owner uid %d, mode %04o", e.UID, uint32(e.Perm.Perm())|stickyBit(e.Perm))
}

func stickyBit(m fs.FileMode) uint32 {
	if m&fs.ModeSticky != 0 {
		return 0o1000
	}
	return 0
}

// PrivateDir checks e is a private directory of u's.
func (u User) PrivateDir(e Entry) error {
	switch {
	case !e.Dir:
		return &Error{e.Path, "not a directory", "remove it, or choose another directory"}
	case e.UID != u.UID:
		return &Error{e.Path, fmt.Sprintf("a directory of another user (%s), not yours (uid %d): they could put files there that tmuxmcp reads and runs", e.mode(), u.UID),
			"choose another directory, or have it removed (rm -rf " + e.Path + ") and let tmuxmcp make it again"}
	case e.Perm&0o022 != 0:
		return &Error{e.Path, fmt.Sprintf("other users may write in it (%s): they could replace the files tmuxmcp reads and runs", e.mode()),
			"fix it with: chmod 700 " + e.Path + " (and remove anything in it you did not put there), or choose another directory"}
	}
	return nil
}

// Parent checks e may hold a private directory: nobody but u and root
// can rename what is in it.
func (u User) Parent(e Entry) error {
	switch {
	case !e.Dir:
		return &Error{e.Path, "not a directory", "choose another directory"}
	case e.UID != u.UID && e.UID != 0:
		return &Error{e.Path, fmt.Sprintf("a parent owned by another user (%s): they could swap the directory inside for their own", e.mode()),
			"choose a directory whose parents are yours or root's"}
	case e.Perm&fs.ModeSticky != 0:
		return nil
	case e.Perm&0o002 != 0 || e.Perm&0o020 != 0 && e.GID != u.ownGroup():
		return &Error{e.Path, fmt.Sprintf("a parent other users may write (%s, group %d): they could swap the directory inside for their own", e.mode(), e.GID),
			"fix it with: chmod go-w " + e.Path + ", or choose another directory"}
	}
	return nil
}

// PrivateFile checks e is a private file of u's.
func (u User) PrivateFile(e Entry) error {
	switch {
	case e.Link:
		return &Error{e.Path, "a symbolic link where tmuxmcp keeps a file of its own", "remove it (rm " + e.Path + ")"}
	case !e.Regular:
		return &Error{e.Path, "not a regular file", "remove it (rm -r " + e.Path + ")"}
	case e.UID != u.UID:
		return &Error{e.Path, fmt.Sprintf("a file of another user (%s), not yours (uid %d)", e.mode(), u.UID),
			"remove it (rm " + e.Path + ") and let tmuxmcp write its own"}
	case e.Perm&0o077 != 0:
		return &Error{e.Path, fmt.Sprintf("other users may read or write it (%s)", e.mode()), "fix it with: chmod 600 " + e.Path}
	}
	return nil
}

// Dir makes dir a private directory of the user's, or checks the one
// there: each missing component is made with mode 0700 (and checked), an
// existing dir must be private (a symbolic link to one: the link the
// user's or root's), and each of its parents must pass Parent.
func Dir(dir string) error {
	u := Me()
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if err := u.mkdirs(abs); err != nil {
		return err
	}
	return u.checkDir(abs)
}

// Check is Dir without making anything: an error wrapping fs.ErrNotExist
// when dir does not exist.
func Check(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	return Me().checkDir(abs)
}

// mkdirs makes the missing components of the absolute path abs, each with
// mode 0700 exactly (whatever the umask).
func (u User) mkdirs(abs string) error {
	if _, err := os.Lstat(abs); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return nil // there (checked next), or an error the check reports
	}
	if parent := filepath.Dir(abs); parent != abs {
		if err := u.mkdirs(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(abs, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("make %s: %w", abs, err)
	} else if err == nil {
		if err := os.Chmod(abs, 0o700); err != nil {
			return fmt.Errorf("make %s: %w", abs, err)
		}
	}
	return nil
}

// checkDir checks the absolute path abs and its parents.
func (u User) checkDir(abs string) error {
	li, err := os.Lstat(abs)
	if err != nil {
		return fmt.Errorf("%s: %w", abs, err)
	}
	e := entryOf(abs, li)
	if e.Link {
		if e.UID != u.UID && e.UID != 0 {
			return &Error{abs, fmt.Sprintf("a symbolic link of another user (%s): they could point it elsewhere", e.mode()), "remove it, or choose another directory"}
		}
		st, err := os.Stat(abs)
		if err != nil {
			return fmt.Errorf("%s: %w", abs, err)
		}
		e = entryOf(abs, st)
	}
	if err := u.PrivateDir(e); err != nil {
		return err
	}
	if err := u.parents(abs); err != nil {
		return err
	}
	if e.Link || li.Mode()&fs.ModeSymlink != 0 {
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return fmt.Errorf("%s: %w", abs, err)
		}
		return u.parents(real)
	}
	return nil
}

// CanHold checks that dir and each of its parents pass Parent: a private
// directory made in dir could not be swapped by another user.
func CanHold(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	return Me().parents(filepath.Join(abs, "x"))
}

// parents checks every parent of abs with Parent (following symbolic
// links to the directories they name).
func (u User) parents(abs string) error {
	for p := filepath.Dir(abs); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if err := u.Parent(entryOf(p, st)); err != nil {
			return err
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// Tree checks every directory under the private directory dir (which
// Dir or Check has passed): each must be private, and a symbolic link in
// it must be the user's. Files are checked where they are opened.
func Tree(dir string) error {
	u := Me()
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if p == dir || !d.IsDir() && d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		e := entryOf(p, info)
		if e.Link {
			if e.UID != u.UID {
				return &Error{p, fmt.Sprintf("a symbolic link of another user (%s)", e.mode()), "remove it (rm " + p + ")"}
			}
			return nil
		}
		return u.PrivateDir(e)
	})
}
