#!/bin/sh
# Installs the benchmark's peer gateway (Portkey's open-source gateway, pinned versions) into
# bench/peer/node_modules, isolated from modelgate's own dependencies. Run once: npm run bench:setup
# Lifecycle scripts are skipped: Portkey's postinstall runs patch-package, and its package ships
# no patches, so it would do nothing.
set -eu
cd "$(dirname "$0")"
npm ci --ignore-scripts --no-audit --no-fund
node -e '
const v = (p) => require(`./node_modules/${p}/package.json`).version;
console.log(`peer installed: @portkey-ai/gateway ${v("@portkey-ai/gateway")}, hono ${v("hono")}, @hono/node-server ${v("@hono/node-server")}`);
'
