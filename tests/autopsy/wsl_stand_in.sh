#!/bin/sh
# Stands in for `wsl.exe -d DISTRIBUTION --` in the Autopsy module's tests: appends its arguments to the file
# $ROO_WRAPPER_LOG (one per line, a blank line after the last), takes wsl.exe's own options as wsl.exe does
# (-d/--distribution NAME, then `--` ends them), and runs the rest as the command.
log="${ROO_WRAPPER_LOG:?ROO_WRAPPER_LOG names the file that records the arguments}"
for a in "$@"; do printf '%s\n' "$a" >> "$log"; done
printf '\n' >> "$log"
while [ $# -gt 0 ]; do
  case "$1" in
    -d|--distribution) shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
exec "$@"
