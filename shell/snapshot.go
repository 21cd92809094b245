package shell

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// A snapshot is what SnapshotScript prints and ParseSnapshot reads: every
// file, link and directory listing of another machine's /proc the probe of
// one pane reads, its terminal's modes and its architecture, in one round
// trip. After the line "tmuxmcp-snapshot 1" come records, each a header
// line "KIND NAME LEN", exactly LEN bytes and a newline, and then the line
// "end". NAME holds no space or newline; the bytes are anything. KIND is
//
//	f  the file NAME holds the bytes
//	x  the file NAME holds the bytes od -An -v -tx1 prints in hex
//	l  the symbolic link NAME points to the bytes
//	d  the directory NAME holds the space-separated names
//	t  the terminal NAME's modes are the bytes stty -a prints
//	m  the machine (NAME "-") is the bytes uname -m prints
//
// What is not there does not exist: a process that exited while the script
// ran is absent, or has some of its files.
const snapshotMagic = "tmuxmcp-snapshot 1"

// snapshotLimit is how many processes below the pane's first one (or, on a
// kernel without /proc/PID/task/TID/children, how many processes in all) a
// snapshot holds.
const snapshotLimit = 4096

// snapshotScript prints a snapshot; SnapshotScript sets pid, tty, limit
// and magic before it.
//
// It reads files with the shell's read, not cat, so that all it starts is
// uname (only where /proc/sys/kernel/arch is missing), one grep (btime of
// /proc/stat and SigCgt of the status files), one stty, one od (the pane
// process's command line, which holds NULs), and a readlink for each
// descriptor link. The probe reads a process's status, syscall, wchan and
// descriptor links only when it is in the foreground group (the links only
// while it sleeps), and the command line only of the pane's first process:
// so does the script. A link's target loses trailing newlines (no
// terminal's path has one). A terminal is opened only by stty in a
// subshell, which can never make it its controlling terminal.
const snapshotScript = `
LC_ALL=C; export LC_ALL
set -f
nl='
'
fg= fgseen= n=0 next= status=
emit() { printf '%s %s %d\n%s\n' "$1" "$2" ${#3} "$3"; }
rd() { { c= l=; while IFS= read -r l; do c=$c$l$nl; done; c=$c$l; } <"$1"; } 2>/dev/null
put() { rd "$1" && emit f "$1" "$c"; }
link() { lt=$(readlink "$1" 2>/dev/null) && emit l "$1" "$lt"; }
# proc PID: what the probe reads of process PID.
proc() {
	rd /proc/$1/stat || return 0
	emit f /proc/$1/stat "$c"
	set -- $1 ${c##*)}
	put /proc/$1/comm
	# $2 state, $4 pgrp, $7 tpgid
	if [ "$1" = "$pid" ]; then
		fg=$7
		x=$(od -An -v -tx1 /proc/$1/cmdline 2>/dev/null) && emit x /proc/$1/cmdline "$x"
	fi
	[ "$1" = "$fg" ] && fgseen=1
	[ "$1" = "$fg" ] || [ "$4" = "$fg" ] || return 0
	status="$status /proc/$1/status"
	put /proc/$1/wchan
	sc=
	rd /proc/$1/syscall && emit f /proc/$1/syscall "$c" && sc=$c
	[ "$2" = S ] || return 0
	link /proc/$1/fd/0
	pp=$1
	set -- $sc
	case $2 in 0x*) h=${2#0x} ;; *) return 0 ;; esac
	case $h in ''|*[!0-9a-f]*) return 0 ;; esac
	[ ${#h} -le 8 ] && [ $((0x$h)) -gt 0 ] && [ $((0x$h)) -le 2147483647 ] && link /proc/$pp/fd/$((0x$h))
	return 0
}
# visit PID: proc a process below the pane's first one, up to the limit.
visit() {
	[ $n -lt $limit ] || return 1
	n=$((n + 1))
	proc $1
}
# kids PID: PID's threads and their children, which visit; false when the
# pane's first process has no children files (the kernel keeps none).
kids() {
	ts=
	set +f
	for t in /proc/$1/task/*; do
		t=${t##*/}
		case $t in ''|*[!0-9]*) ;; *) ts="$ts $t" ;; esac
	done
	set -f
	[ -n "$ts" ] || return 0
	emit d /proc/$1/task "${ts# }"
	for t in $ts; do
		if rd /proc/$1/task/$t/children; then
			emit f /proc/$1/task/$t/children "$c"
			for k in $c; do
				case $k in *[!0-9]*) ;; *) visit $k && next="$next $k" ;; esac
			done
		elif [ "$1" = "$pid" ]; then
			return 1
		fi
	done
	return 0
}
# everyone: every process, for a kernel without children files.
everyone() {
	ps=
	set +f
	for q in /proc/[0-9]*; do
		q=${q#/proc/}
		case $q in *[!0-9]*) ;; *) ps="$ps $q" ;; esac
	done
	set -f
	emit d /proc "${ps# }"
	for q in $ps; do
		[ "$q" = "$pid" ] || visit $q || break
	done
}
printf '%s\n' "$magic"
if rd /proc/sys/kernel/arch; then c=${c%"$nl"}; else c=$(uname -m 2>/dev/null); fi
emit m - "$c"
proc $pid
level=$pid
while [ -n "$level" ]; do
	next=
	for p in $level; do
		kids $p || { everyone; next=; break; }
	done
	level=$next
done
case $fg in '' | 0 | -*) ;; *) [ -n "$fgseen" ] || proc $fg ;; esac
# One grep for the boot time and the foreground group's SigCgt lines
# (/dev/null: it names the file of every line).
g=$(grep -e '^btime ' -e '^SigCgt:' /proc/stat $status /dev/null 2>/dev/null)
IFS=$nl
for l in $g; do
	case $l in /proc/stat:* | /proc/*/status:*) emit f "${l%%:*}" "${l#*:}$nl" ;; esac
done
unset IFS
[ -n "$tty" ] && s=$(stty -a 2>/dev/null <"$tty") && emit t "$tty" "$s"
printf 'end\n'
`

// SnapshotScript is a POSIX sh script that prints a snapshot of what
// ProbePane(pid, tty) reads, for ParseSnapshot: run it on the machine
// whose pane that is (sh -c over SSH) and probe its output with ProbeWith.
// A tty that is not a /dev/ path of letters, digits and "/._-" is left
// out: the snapshot then has no terminal modes.
func SnapshotScript(pid int, tty string) string {
	if !plainDevicePath(tty) {
		tty = ""
	}
	return fmt.Sprintf("pid=%d tty=%s limit=%d magic=%s", pid, Quote(tty), snapshotLimit, Quote(snapshotMagic)) + snapshotScript
}

// plainDevicePath says tty is /dev/ followed by letters, digits and "/._-".
func plainDevicePath(tty string) bool {
	rest, ok := strings.CutPrefix(tty, "/dev/")
	if !ok || rest == "" {
		return false
	}
	for _, r := range rest {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', strings.ContainsRune("/._-", r):
		default:
			return false
		}
	}
	return true
}

// snapshot is a Proc read from what SnapshotScript printed.
type snapshot struct {
	files map[string][]byte
	links map[string]string
	dirs  map[string][]string
	stty  map[string]string // by terminal
	arch  string
}

// ParseSnapshot reads what SnapshotScript printed into a Proc for
// ProbeWith. Output that is cut short or not a snapshot is an error.
func ParseSnapshot(out []byte) (Proc, error) {
	rest, ok := bytes.CutPrefix(out, []byte(snapshotMagic+"\n"))
	if !ok {
		return nil, errors.New("parse snapshot: no snapshot header")
	}
	s := &snapshot{files: map[string][]byte{}, links: map[string]string{}, dirs: map[string][]string{}, stty: map[string]string{}}
	for {
		header, body, ok := bytes.Cut(rest, []byte("\n"))
		if !ok {
			return nil, errors.New("parse snapshot: cut short")
		}
		if string(header) == "end" {
			if len(body) > 0 {
				return nil, errors.New("parse snapshot: data after its end")
			}
			return s, nil
		}
		kind, name, n, err := recordHeader(header, len(body))
		if err != nil {
			return nil, fmt.Errorf("parse snapshot: %w", err)
		}
		if body[n] != '\n' {
			return nil, fmt.Errorf("parse snapshot: record %q does not end after %d bytes", header, n)
		}
		if err := s.add(kind, name, body[:n]); err != nil {
			return nil, fmt.Errorf("parse snapshot: record %q: %w", header, err)
		}
		rest = body[n+1:]
	}
}

// recordHeader reads a record's header "KIND NAME LEN", where avail bytes
// follow it.
func recordHeader(header []byte, avail int) (kind byte, name string, n int, err error) {
	f := strings.Split(string(header), " ")
	if len(f) != 3 || len(f[0]) != 1 || f[1] == "" {
		return 0, "", 0, fmt.Errorf("not a record header: %q", header)
	}
	size, err := strconv.ParseUint(f[2], 10, 31)
	if err != nil {
		return 0, "", 0, fmt.Errorf("record header %q: length: %w", header, err)
	}
	if int(size) >= avail {
		return 0, "", 0, fmt.Errorf("record %q: cut short", header)
	}
	return f[0][0], f[1], int(size), nil
}

// add keeps one record.
func (s *snapshot) add(kind byte, name string, body []byte) error {
	switch kind {
	case 'f':
		s.files[name] = bytes.Clone(body)
	case 'x':
		b, err := unhex(body)
		if err != nil {
			return err
		}
		s.files[name] = b
	case 'l':
		s.links[name] = string(body)
	case 'd':
		names := strings.Fields(string(body))
		slices.Sort(names)
		s.dirs[name] = names
	case 't':
		s.stty[name] = string(body)
	case 'm':
		s.arch = goarch(strings.TrimSpace(string(body)))
	default:
		return fmt.Errorf("unknown kind %q", kind)
	}
	return nil
}

// unhex decodes what od -An -v -tx1 prints: bytes as pairs of hex digits
// separated by blanks and newlines.
func unhex(od []byte) ([]byte, error) {
	f := bytes.Fields(od)
	out := make([]byte, len(f))
	for i, pair := range f {
		b, err := strconv.ParseUint(string(pair), 16, 8)
		if err != nil || len(pair) != 2 {
			return nil, fmt.Errorf("not a hex byte: %q", pair)
		}
		out[i] = byte(b)
	}
	return out, nil
}

// goarch names the GOARCH of what uname -m prints, for the system call
// numbers; "" for one the probe does not know.
func goarch(machine string) string {
	switch machine {
	case "x86_64", "amd64":
		return "amd64"
	case "aarch64", "arm64":
		return "arm64"
	case "riscv64":
		return "riscv64"
	case "loongarch64":
		return "loong64"
	}
	return ""
}

func (s *snapshot) ReadFile(name string) ([]byte, error) {
	b, ok := s.files[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return bytes.Clone(b), nil
}

func (s *snapshot) Readlink(name string) (string, error) {
	l, ok := s.links[name]
	if !ok {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrNotExist}
	}
	return l, nil
}

func (s *snapshot) ReadDir(name string) ([]string, error) {
	names, ok := s.dirs[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return slices.Clone(names), nil
}

func (s *snapshot) Arch() string { return s.arch }

// Termios reads the modes stty -a printed: "icanon" or "-icanon" and so on.
func (s *snapshot) Termios(tty string) (canonical, echo, isig bool, err error) {
	out, ok := s.stty[tty]
	if !ok {
		return false, false, false, fmt.Errorf("read terminal mode of %s: %w", tty, fs.ErrNotExist)
	}
	modes := map[string]bool{}
	for _, w := range strings.FieldsFunc(out, func(r rune) bool { return r == ';' || r == ' ' || r == '\t' || r == '\n' }) {
		name, off := strings.CutPrefix(w, "-")
		modes[name] = !off
	}
	for _, m := range []string{"icanon", "echo", "isig"} {
		if _, ok := modes[m]; !ok {
			return false, false, false, fmt.Errorf("read terminal mode of %s: stty -a printed no %s", tty, m)
		}
	}
	return modes["icanon"], modes["echo"], modes["isig"], nil
}
