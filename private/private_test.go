package private

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tmuxmcp/tmuxmcp/internal/testdir"
)

// asRoot skips a test that gives files to another user.
func asRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("giving a directory to uid 1234 takes root (os.Chown); run the tests as root to cover another owner")
	}
}

// refused fails unless err is an *Error naming path and containing each
// of want.
func refused(t *testing.T, err error, path string, want ...string) {
	t.Helper()
	var pe *Error
	if !errors.As(err, &pe) || pe.Path != path {
		t.Fatalf("got %v, want a refusal naming %s", err, path)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the refusal %q does not say %q", err, w)
		}
	}
}

func TestDirMakesEveryMissingComponent0700WhateverTheUmask(t *testing.T) {
	old := syscall.Umask(0o002)
	defer syscall.Umask(old)
	b := testdir.Private(t)
	dir := filepath.Join(b, "a", "b", "state")
	if err := Dir(dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(b, "a"), filepath.Join(b, "a", "b"), dir} {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want mode 0700", p, st.Mode(), err)
		}
	}
	if err := Dir(dir); err != nil {
		t.Fatalf("a second Dir of a private directory: %v", err)
	}
}

func TestADirectoryOthersMayWriteIsRefusedWithTheChmod(t *testing.T) {
	dir := filepath.Join(testdir.Private(t), "state")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []fs.FileMode{0o777, 0o770, 0o702} {
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		err := Dir(dir)
		refused(t, err, dir, "other users may write", "chmod 700 "+dir)
		if st, _ := os.Stat(dir); st.Mode().Perm() != mode {
			t.Errorf("a refused directory's mode was changed to %v", st.Mode())
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Dir(dir); err != nil {
		t.Errorf("a directory of yours that others may only read: %v", err)
	}
}

func TestADirectoryOfAnotherUserIsRefusedWithItsOwner(t *testing.T) {
	asRoot(t)
	b := testdir.Private(t)
	dir := filepath.Join(b, "state")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 1234, 1234); err != nil {
		t.Fatal(err)
	}
	refused(t, Dir(dir), dir, "another user", "uid 1234", "mode 0700", "choose another directory")
	refused(t, Check(dir), dir, "uid 1234")
	// A symbolic link of yours to it is refused too.
	link := filepath.Join(b, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	refused(t, Dir(link), link, "uid 1234")
	// A parent of another user's: they could swap what is inside.
	inner := filepath.Join(dir, "inner")
	if err := os.Mkdir(inner, 0o700); err != nil {
		t.Fatal(err)
	}
	refused(t, Dir(inner), dir, "a parent owned by another user")
}

func TestAWorldWritableParentIsRefusedUnlessSticky(t *testing.T) {
	b := testdir.Private(t)
	shared := filepath.Join(b, "shared")
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(shared, "state")
	refused(t, Dir(dir), shared, "a parent other users may write", "chmod go-w "+shared)
	if err := os.Chmod(shared, 0o777|fs.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if err := Dir(dir); err != nil {
		t.Fatalf("under a sticky directory (as /tmp): %v", err)
	}
}

func TestTreeRefusesADirectoryInsideThatOthersMayWrite(t *testing.T) {
	dir := filepath.Join(testdir.Private(t), "state")
	jobs := filepath.Join(dir, "jobs")
	if err := Dir(jobs); err != nil {
		t.Fatal(err)
	}
	if err := Tree(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(jobs, 0o777); err != nil {
		t.Fatal(err)
	}
	refused(t, Tree(dir), jobs, "chmod 700 "+jobs)
}

func TestCreateNeverFollowsOrReusesWhatIsThere(t *testing.T) {
	dir := testdir.Private(t)
	target := filepath.Join(dir, "target")
	p := filepath.Join(dir, "job.run")
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	refused(t, Create(p, []byte("echo hi\n")), p, "exists already")
	if _, err := os.Stat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Create wrote through a planted link: %v", err)
	}
	q := filepath.Join(dir, "new.run")
	old := syscall.Umask(0)
	err := Create(q, []byte("x"))
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(q); err != nil || st.Mode() != 0o600 {
		t.Fatalf("a created file: %v %v, want a regular file of mode 0600", st.Mode(), err)
	}
}

func TestWriteFileReplacesALinkInsteadOfFollowingIt(t *testing.T) {
	dir := testdir.Private(t)
	target := filepath.Join(dir, "target")
	p := filepath.Join(dir, "token")
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("secret")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("WriteFile wrote through a link: %v", err)
	}
	if err := CheckFile(p); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
}

func TestOpenFileRefusesAFileOthersMayReadOrALink(t *testing.T) {
	dir := testdir.Private(t)
	p := filepath.Join(dir, "audit.log")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	refused(t, err, p, "mode 0644", "chmod 600 "+p)
	link := filepath.Join(dir, "link.log")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	_, err = OpenFile(link, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	refused(t, err, link, "symbolic link")
	f, err := OpenFile(filepath.Join(dir, "new.log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestAFileOfAnotherUserIsRefused(t *testing.T) {
	asRoot(t)
	p := filepath.Join(testdir.Private(t), "http-token")
	if err := os.WriteFile(p, []byte("planted"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, 1234, 1234); err != nil {
		t.Fatal(err)
	}
	refused(t, CheckFile(p), p, "another user", "uid 1234")
	_, err := OpenFile(p, os.O_RDONLY)
	refused(t, err, p, "uid 1234")
}

func TestParseLSReadsModesOwnersAndStickyBits(t *testing.T) {
	for _, c := range []struct {
		line string
		want Entry
	}{
		{"drwx------ 2 1000 1000 4096 Jan  1 00:00 /h/x", Entry{Dir: true, UID: 1000, GID: 1000, Perm: 0o700}},
		{"drwxrwxrwt. 9 0 0 4096 Jan  1 00:00 /tmp", Entry{Dir: true, UID: 0, GID: 0, Perm: 0o777 | fs.ModeSticky}},
		{"drwxr-x--T+ 2 5 6 4096 Jan  1 00:00 /a b", Entry{Dir: true, UID: 5, GID: 6, Perm: 0o750 | fs.ModeSticky}},
		{"lrwxrwxrwx 1 0 0 4 Jan  1 00:00 /l -> /x", Entry{Link: true, Perm: 0o777}},
		{"-rw-r--r-- 1 0 0 4 Jan  1 00:00 /f", Entry{Regular: true, Perm: 0o644}},
	} {
		got, err := ParseLS("p", c.line)
		c.want.Path = "p"
		if err != nil || got != c.want {
			t.Errorf("%q: %+v %v, want %+v", c.line, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "ls: cannot access", "drwx------ 2 me me 4096"} {
		if _, err := ParseLS("p", bad); err == nil {
			t.Errorf("%q read as a listing", bad)
		}
	}
}

func TestAParentTheUsersOwnGroupMayWriteIsAccepted(t *testing.T) {
	u := User{UID: 1000, GID: 1000, OwnGroup: 1000}
	e := Entry{Path: "/home/u/.local", Dir: true, UID: 1000, GID: 1000, Perm: 0o775}
	if err := u.Parent(e); err != nil {
		t.Errorf("umask 002's ~/.local of the user's own group: %v", err)
	}
	e.GID = 100 // users: shared
	refused(t, u.Parent(e), e.Path, "group 100")
	u.OwnGroup = -1
	e.GID = 1000
	refused(t, u.Parent(e), e.Path, "other users may write")
}
