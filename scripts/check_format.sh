#!/usr/bin/env bash
# Fails (listing the files) when a tracked C or C++ source differs from
# clang-format's output with the repository's .clang-format.
#   scripts/check_format.sh        check
#   scripts/check_format.sh --fix  rewrite the files in place
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cc' '*.h' '*.c')
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
if ! clang-format --dry-run --Werror "${files[@]}" 2>/tmp/nodeplan-format.$$; then
  echo "check_format: these files need clang-format (scripts/check_format.sh --fix):"
  grep -oE '^[^:]+:[0-9]+:[0-9]+: error' /tmp/nodeplan-format.$$ | cut -d: -f1 | sort -u | sed 's/^/  /'
  rm -f /tmp/nodeplan-format.$$
  exit 1
fi
rm -f /tmp/nodeplan-format.$$
echo "check_format: ${#files[@]} files formatted"
