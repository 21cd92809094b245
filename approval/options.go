package approval

import (
	"strings"
)

// valueKind is whether an option takes a value.
type valueKind int

const (
	noValue  valueKind = iota
	required           // --opt=V, --opt V, -oV, -o V
	optional           // --opt=V or -oV only
)

// option is one option a program reads: its long name (or "" for a short
// option without one), the letters that spell it short, its value.
type option struct {
	long   string
	shorts string
	value  valueKind
}

// name is how the canonical form writes the option: --long, or -x.
func (o option) name() string {
	if o.long != "" {
		return "--" + o.long
	}
	return "-" + o.shorts[:1]
}

// options is the option table of one program.
type options struct {
	short map[byte]option
	long  []option
}

// opts builds an option table from entries separated by blanks, each
// [SHORTS:][LONG][=|=?]: "rR:recursive" is -r, -R and --recursive;
// "t:target-directory=" takes a value; "I:" is -I alone; "b:=" is -b with
// a value; "=?" is a value given only attached (--opt=V, -oV).
func opts(spec string) *options {
	t := &options{short: map[byte]option{}}
	for _, e := range strings.Fields(spec) {
		var o option
		switch {
		case strings.HasSuffix(e, "=?"):
			o.value, e = optional, strings.TrimSuffix(e, "=?")
		case strings.HasSuffix(e, "="):
			o.value, e = required, strings.TrimSuffix(e, "=")
		}
		if s, l, ok := strings.Cut(e, ":"); ok {
			o.shorts, o.long = s, l
		} else {
			o.long = e
		}
		for i := 0; i < len(o.shorts); i++ {
			t.short[o.shorts[i]] = o
		}
		if o.long != "" {
			t.long = append(t.long, o)
		}
	}
	return t
}

// lookupLong finds a long option the way GNU getopt_long does: the exact
// name, else the one name it is a prefix of. ok is false for an unknown
// name; ambiguous says it is a prefix of several.
func (t *options) lookupLong(name string) (o option, ok, ambiguous bool) {
	var found []option
	for _, c := range t.long {
		if c.long == name {
			return c, true, false
		}
		if strings.HasPrefix(c.long, name) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 0:
		return option{}, false, false
	case 1:
		return found[0], true, false
	}
	return option{}, false, true
}

// optionTables are the programs whose options the canonical form knows
// (short letters, long names and their prefixes, which take a value):
// the common ones that delete, move, overwrite or change files, and git's
// subcommands that rewrite history or discard work. Other programs' short
// clusters are written both whole and letter by letter (-abc -a -b -c),
// their long options as written.
var optionTables = map[string]*options{
	"rm":           opts("f:force i: I: interactive=? one-file-system no-preserve-root preserve-root=? rR:recursive d:dir v:verbose help version"),
	"rmdir":        opts("ignore-fail-on-non-empty p:parents v:verbose help version"),
	"mv":           opts("backup=? b: debug exchange f:force i:interactive n:no-clobber no-copy strip-trailing-slashes S:suffix= t:target-directory= T:no-target-directory u:update=? v:verbose Z:context help version"),
	"cp":           opts("a:archive attributes-only backup=? b: copy-contents d: debug f:force i:interactive H: l:link L:dereference n:no-clobber P:no-dereference p: preserve=? no-preserve= parents rR:recursive reflink=? remove-destination sparse= strip-trailing-slashes s:symbolic-link S:suffix= t:target-directory= T:no-target-directory u:update=? v:verbose x:one-file-system Z: context=? keep-directory-symlink help version"),
	"ln":           opts("backup=? b: dF:directory f:force i:interactive L:logical n:no-dereference P:physical r:relative s:symbolic S:suffix= t:target-directory= T:no-target-directory v:verbose help version"),
	"chmod":        opts("c:changes f:silent quiet v:verbose no-preserve-root preserve-root reference= R:recursive help version"),
	"chown":        opts("c:changes dereference h:no-dereference from= no-preserve-root preserve-root f:silent quiet reference= R:recursive v:verbose H: L: P: help version"),
	"chgrp":        opts("c:changes dereference h:no-dereference no-preserve-root preserve-root f:silent quiet reference= R:recursive v:verbose H: L: P: help version"),
	"shred":        opts("f:force n:iterations= random-source= s:size= u:remove=? v:verbose x:exact z:zero help version"),
	"truncate":     opts("c:no-create o:io-blocks r:reference= s:size= help version"),
	"sed":          opts("n:quiet silent debug e:expression= f:file= follow-symlinks i:in-place=? l:line-length= posix Er:regexp-extended s:separate sandbox u:unbuffered z:null-data help version"),
	"git push":     opts("all branches mirror tags follow-tags atomic n:dry-run porcelain d:delete f:force force-with-lease=? force-if-includes repo= u:set-upstream thin q:quiet v:verbose progress recurse-submodules= verify no-verify 4:ipv4 6:ipv6 receive-pack= exec= o:push-option= signed=? prune"),
	"git clean":    opts("d: f:force i:interactive n:dry-run q:quiet e:exclude= x: X:"),
	"git reset":    opts("hard soft mixed keep merge q:quiet p:patch N:intent-to-add recurse-submodules=? pathspec-from-file= pathspec-file-nul no-refresh refresh"),
	"git checkout": opts("b:= B:= f:force m:merge ours theirs detach orphan= p:patch q:quiet t:track=? l: conflict= ignore-other-worktrees overwrite-ignore recurse-submodules=? progress guess overlay pathspec-from-file= pathspec-file-nul"),
	"git switch":   opts("c:create= C:force-create= d:detach f:force discard-changes m:merge conflict= q:quiet progress t:track=? guess orphan= ignore-other-worktrees recurse-submodules=?"),
	"git restore":  opts("s:source= p:patch W:worktree S:staged q:quiet progress ours theirs m:merge conflict= ignore-unmerged ignore-skip-worktree-bits recurse-submodules=? overlay pathspec-from-file= pathspec-file-nul"),
	"git branch":   opts("d:delete D: f:force m:move M: c:copy C: l:list a:all r:remotes v:verbose q:quiet t:track=? u:set-upstream-to= unset-upstream edit-description contains=? no-contains=? merged=? no-merged=? points-at= sort= format= column=? color=? i:ignore-case abbrev= show-current create-reflog"),
	"git rm":       opts("f:force n:dry-run r: cached ignore-unmatch q:quiet pathspec-from-file= pathspec-file-nul sparse"),
	"git stash":    opts("p:patch S:staged k:keep-index no-keep-index u:include-untracked a:all q:quiet m:message= pathspec-from-file= pathspec-file-nul index"),
}
