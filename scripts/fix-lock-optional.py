#!/usr/bin/env python3
"""Records platform-specific optional dependencies that the npm registry mirror here does not
serve (e.g. darwin/win32 builds of rollup, deno), so `npm ci` accepts the lock file. npm skips
them on this platform by their os/cpu fields; on other platforms it fetches them as usual."""
import json, re, sys

path = sys.argv[1] if len(sys.argv) > 1 else 'package-lock.json'
lock = json.load(open(path))
pkgs = lock['packages']
OS = ['darwin', 'win32', 'linux', 'android', 'freebsd', 'openbsd', 'netbsd', 'sunos', 'aix', 'openharmony']
CPU = ['arm64', 'x64', 'ia32', 'arm', 'loong64', 'ppc64', 'riscv64', 's390x', 'mips64el']
added = 0
for key, meta in list(pkgs.items()):
    for name, spec in (meta.get('optionalDependencies') or {}).items():
        base = key + '/node_modules/' + name if key else 'node_modules/' + name
        top = 'node_modules/' + name
        if base in pkgs or top in pkgs:
            continue
        entry = {'version': re.sub(r'^[~^=]', '', spec), 'optional': True}
        if meta.get('dev'):
            entry['dev'] = True
        os_ = next((o for o in OS if re.search(r'(^|[-/])' + o + r'($|-)', name)), None)
        cpu = next((c for c in CPU if re.search(r'(^|-)' + c + r'($|-)', name)), None)
        if os_:
            entry['os'] = [os_]
        if cpu:
            entry['cpu'] = [cpu]
        if not os_ and not cpu:
            continue  # not a platform build; leave it to npm
        pkgs[top] = entry
        added += 1
json.dump(lock, open(path, 'w'), indent=2)
open(path, 'a').write('\n')
print(f'added {added} platform entries')
