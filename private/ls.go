package private

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// ParseLS reads the Entry of path from its line of `ls -ldn` (POSIX: the
// mode string, the link count, the numeric owner and group, ...), as a
// remote host answers it.
func ParseLS(path, line string) (Entry, error) {
	f := strings.Fields(line)
	if len(f) < 4 || len(f[0]) < 10 {
		return Entry{}, fmt.Errorf("%s: ls -ldn printed %q, not a listing", path, line)
	}
	uid, err1 := strconv.Atoi(f[2])
	gid, err2 := strconv.Atoi(f[3])
	if err1 != nil || err2 != nil {
		return Entry{}, fmt.Errorf("%s: ls -ldn printed %q: no numeric owner and group", path, line)
	}
	m := f[0]
	e := Entry{Path: path, Dir: m[0] == 'd', Regular: m[0] == '-', Link: m[0] == 'l', UID: uid, GID: gid}
	// rwx three times; s/S and t/T stand for set-id and sticky over x.
	for i, c := range m[1:10] {
		bit := fs.FileMode(1) << (8 - i)
		switch c {
		case 'r', 'w', 'x', 's', 't':
			e.Perm |= bit
		case '-', 'S', 'T':
		default:
			return Entry{}, fmt.Errorf("%s: ls -ldn printed %q: unknown mode %q", path, line, m)
		}
	}
	if m[9] == 't' || m[9] == 'T' {
		e.Perm |= fs.ModeSticky
	}
	return e, nil
}
