package sandbox

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/tmuxmcp/tmuxmcp/private"
)

// A seccomp filter every sandboxed process runs under (bwrap --seccomp).
// It refuses, with EPERM:
//   - ioctl TIOCSTI and TIOCLINUX: pushing bytes into the terminal's input,
//     which the pane's shell would read as typed (a line the policy never
//     judged; where the kernel still allows it, dev.tty.legacy_tiocsti=1);
//   - keyctl, add_key, request_key: the kernel keyrings are not namespaced,
//     so the user's keys (and, as root, root's) would be in reach;
//   - every system call of another ABI (32-bit x86 on x86-64, x32), whose
//     numbers this filter does not check: such programs do not run inside.

// seccomp_data offsets (linux/seccomp.h).
const (
	offNr       = 0
	offArch     = 4
	offArg1Low  = 24 // args[1], low 32 bits on a little-endian machine
	x32Bit      = 0x40000000
	retAllow    = 0x7fff0000
	retErrnoEPE = 0x00050000 | 1 // SECCOMP_RET_ERRNO | EPERM
	tiocLinux   = 0x541c
)

// BPF opcodes.
const (
	ldAbsW = 0x20 // BPF_LD | BPF_W | BPF_ABS
	jeqK   = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	jgeK   = 0x35 // BPF_JMP | BPF_JGE | BPF_K
	retK   = 0x06 // BPF_RET | BPF_K
)

type insn struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

// auditArch is this machine's AUDIT_ARCH_* value, or 0 where the filter
// is not built (the sandbox then refuses to start: fail closed).
func auditArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	}
	return 0
}

// Filter is the compiled filter, as bwrap --seccomp reads it: struct
// sock_filter entries in the machine's byte order.
func Filter() ([]byte, error) {
	arch := auditArch()
	if arch == 0 {
		return nil, &Error{Reason: "no seccomp filter for " + runtime.GOARCH, Fix: "run with --sandbox off on this machine"}
	}
	const allow, deny = 11, 12 // indexes of the two returns
	prog := []insn{
		{ldAbsW, 0, 0, offArch},                                   // 0
		{jeqK, 0, deny - 2, arch},                                 // 1: another ABI: deny
		{ldAbsW, 0, 0, offNr},                                     // 2
		{jgeK, deny - 4, 0, x32Bit},                               // 3: x32: deny
		{jeqK, 8 - 5, 0, uint32(unix.SYS_IOCTL)},                  // 4: ioctl: look at its request
		{jeqK, deny - 6, 0, uint32(unix.SYS_KEYCTL)},              // 5
		{jeqK, deny - 7, 0, uint32(unix.SYS_ADD_KEY)},             // 6
		{jeqK, deny - 8, allow - 8, uint32(unix.SYS_REQUEST_KEY)}, // 7
		{ldAbsW, 0, 0, offArg1Low},                                // 8
		{jeqK, deny - 10, 0, unix.TIOCSTI},                        // 9
		{jeqK, deny - 11, allow - 11, tiocLinux},                  // 10
		{retK, 0, 0, retAllow},                                    // 11
		{retK, 0, 0, retErrnoEPE},                                 // 12
	}
	b := make([]byte, 0, 8*len(prog))
	for _, in := range prog {
		b = binary.NativeEndian.AppendUint16(b, in.code)
		b = append(b, in.jt, in.jf)
		b = binary.NativeEndian.AppendUint32(b, in.k)
	}
	return b, nil
}

// writeFilter writes the filter to path (0600, replaced whole).
func writeFilter(path string) error {
	b, err := Filter()
	if err != nil {
		return err
	}
	if err := private.WriteFile(path, b); err != nil {
		return &Error{Reason: fmt.Sprintf("write the seccomp filter: %v", err), Fix: "check the state directory (tmuxmcp doctor)"}
	}
	return nil
}

// seccompFD is the descriptor bwrap reads the filter from.
const seccompFD = "8"

// withFilter runs bwrap (args) with the filter at path on seccompFD: a
// shell opens it (outside the sandbox, where the file is) and execs into
// bwrap, which then is the pane's first process.
func withFilter(path string, args []string) []string {
	return append([]string{"/bin/sh", "-c", `exec ` + seccompFD + `<"$0" && exec "$@"`, path}, args...)
}

// Unfiltered is args, a command line Command built, without the shell
// that hands bwrap the filter (the command line of a launcher that has
// not exec'd into bwrap yet); other command lines are returned as they
// are.
func (s *Sandbox) Unfiltered(args []string) []string {
	if s == nil || s.cfg.Seccomp == "" {
		return args
	}
	prefix := withFilter(s.cfg.Seccomp, nil)
	if len(args) > len(prefix) && slices.Equal(args[:len(prefix)], prefix) {
		return args[len(prefix):]
	}
	return args
}
