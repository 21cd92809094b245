// Package arch holds the architecture tests: checks over the module's
// source, read with go/parser, of the house rules a compiler does not
// enforce. No function is over a hundred lines; only package tmux speaks
// tmux's command language (its command names and #{} formats); and no
// package imports a room its doc comment says it knows nothing of. It has
// no code of its own besides this comment.
package arch
