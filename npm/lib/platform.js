'use strict';
// Which of the package's binaries runs on this machine. Kept apart from the
// launcher so `node --test` can check the mapping without starting anything.

const path = require('path');

// Node's names for operating systems and processors, and Go's for the same.
const GOOS = { linux: 'linux', darwin: 'darwin' };
const GOARCH = { x64: 'amd64', arm64: 'arm64' };

// target returns the binary's directory name (GOOS-GOARCH) for a Node
// platform and arch, or throws an error that says what is supported.
function target(platform, arch) {
  const os = GOOS[platform];
  const cpu = GOARCH[arch];
  if (!os || !cpu) {
    const hint = platform === 'win32'
      ? ' tmux does not run on Windows itself: run tmuxmcp inside WSL, where it is Linux.'
      : '';
    throw new Error(
      `tmuxmcp has no binary for ${platform}/${arch}: it is built for ` +
      `${supported().join(', ')} (Node's names).${hint} ` +
      'To build it yourself, see "Build from source" in the README.');
  }
  return `${os}-${cpu}`;
}

// supported lists the platform/arch pairs target accepts, in Node's names.
function supported() {
  const pairs = [];
  for (const p of Object.keys(GOOS)) for (const a of Object.keys(GOARCH)) pairs.push(`${p}/${a}`);
  return pairs;
}

// binaryPath is where the package keeps the binary for a target.
function binaryPath(root, dir) {
  return path.join(root, 'vendor', dir, 'tmuxmcp');
}

module.exports = { target, supported, binaryPath };
