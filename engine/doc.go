// Package engine is tmuxmcp below MCP: a command's whole life and every
// other operation of the tool contract, as methods of a Host (one tmux
// server) reached through Hosts (this machine's and the remote ones).
//
// A Host owns its hub of pane streams, its tmux fleet, its job records
// and the runner that types and watches commands, the approval gate (the
// policy, the one review at a time, asking a person in tmux popups, the
// approver program or the caller's client) and the audit events. The
// request and result types are the tool contract's (their JSON names are
// the contract's field names); a transport decodes a call into a request,
// calls one method, and encodes the result. A Caller is what the engine
// needs of whoever called: where progress goes and whether their client
// can ask its user.
//
// A command's life, in the order the code takes it (launch.go):
// RunShellCommand calls Submit (the transport has checked the request
// with its Check method), launch.prior finds the job a
// requestId already names, launch.where checks the pane and directory,
// launch.ready reads the pane's shell (waiting out one still starting),
// then under the launch lock and the pane's lock looks again, judges the
// line with the policy (launch.decide), asks a person when it must
// (launch.askPerson: the job is pending and Host.review runs it once
// approved), records the job and types it (launch.inPane,
// launch.inFreshPane), and awaitJob waits for its end.
//
// It knows nothing of MCP or HTTP.
package engine
