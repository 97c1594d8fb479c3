/**
 * The scripts `klaude completion <shell>` prints. Each is a thin shim: on Tab it asks
 * `klaude __complete` (complete.ts) for the candidates, so commands, flags and session ids always
 * come from the klaude that answers (its command table, the database at that moment), never from a
 * copy in the script. See complete.ts for the arguments and output each shell gets.
 */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

// bash 3.2 (macOS) has no mapfile: read lines in a loop. bash splits words at COMP_WORDBREAKS
// (`=`, `:`), so klaude gets the line itself and bash's current word, and answers for that word.
const BASH = `# klaude completion for bash. Load it from ~/.bashrc:
#   source <(klaude completion bash)
# or save it where bash-completion finds it:
#   klaude completion bash > ~/.local/share/bash-completion/completions/klaude
_klaude() {
  local cur=\${COMP_WORDS[COMP_CWORD]} out line first=1 files=0
  out=$(command klaude __complete bash "$cur" "\${COMP_LINE:0:COMP_POINT}" 2>/dev/null) || return 0
  COMPREPLY=()
  while IFS= read -r line; do
    if (( first )); then
      first=0
      [[ $line == files ]] && files=1
      continue
    fi
    [[ -n $line ]] && COMPREPLY+=("$line")
  done <<< "$out"
  if (( files )); then
    [[ $cur == = ]] && cur=
    compopt -o filenames 2>/dev/null
    local IFS=$'\\n'
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
  return 0
}
complete -F _klaude klaude
`;

// -U: klaude has matched the word already (ids without case), so zsh inserts without filtering.
const ZSH = `#compdef klaude
# klaude completion for zsh. Load it from ~/.zshrc:
#   source <(klaude completion zsh)
# or save it as _klaude in a directory of your $fpath (before compinit runs):
#   klaude completion zsh > "\${fpath[1]}/_klaude"
_klaude() {
  local out l w d
  local -a lines cands
  out=$(command klaude __complete zsh "\${(@Q)words[2,CURRENT-1]}" "\${(Q)PREFIX}" 2>/dev/null) || return 1
  lines=("\${(@f)out}")
  if [[ $lines[1] == files ]]; then
    compset -P '*='
    _files
    return
  fi
  for l in "\${(@)lines[2,-1]}"; do
    [[ -z $l ]] && continue
    w=\${l%%$'\\t'*}
    d=
    [[ $l == *$'\\t'* ]] && d=\${l#*$'\\t'}
    cands+=("\${w//:/\\\\:}\${d:+:$d}")
  done
  (( $#cands )) || return 1
  _describe -t klaude klaude cands -U
}
if [[ "\${funcstack[1]}" == _klaude ]]; then
  _klaude "$@"
else
  (( $+functions[compdef] )) || { autoload -Uz compinit && compinit; }
  compdef _klaude klaude
fi
`;

const FISH = `# klaude completion for fish. Save it where fish finds it:
#   klaude completion fish > ~/.config/fish/completions/klaude.fish
# or load it for this shell: klaude completion fish | source
function __klaude_complete
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l cur (commandline -ct)
    set -l out (command klaude __complete fish $tokens "$cur" 2>/dev/null)
    or return
    if test "$out[1]" = files
        __fish_complete_path "$cur"
        return
    end
    set -e out[1]
    test (count $out) -gt 0; and printf '%s\\n' $out
end
complete -c klaude -f -a '(__klaude_complete)'
`;

export function completionScript(shell: Shell): string {
  return { bash: BASH, zsh: ZSH, fish: FISH }[shell];
}
