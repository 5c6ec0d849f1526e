#include "host/cli/completion_script.hpp"

#include "host/cli/kind_names.hpp"

namespace liveupdate::host::cli {

namespace {

// The scripts, with @COMMANDS@ (the subcommands) and @ARMS@ (one `case` arm
// per subcommand: its options and operands) filled in by filled().
// clang-format off
constexpr std::string_view kBashTemplate = R"sh(# bash completion for lu-host, made by `lu-host completion bash`.
# Load it in the current shell: source <(lu-host completion bash)

# _lu_host_offer CURRENT KIND [WORDS...]: fills COMPREPLY; files are left to
# bash's own filename completion (complete -o default).
_lu_host_offer() {
    local cur="$1" kind="$2"
    shift 2
    case "$kind" in
        words) COMPREPLY=($(compgen -W "$*" -- "$cur")) ;;
        liveupdates) COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" completion liveupdates 2>/dev/null)" -- "$cur")) ;;
        *) COMPREPLY=() ;;
    esac
}

_lu_host() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev=""
    ((COMP_CWORD > 0)) && prev="${COMP_WORDS[COMP_CWORD - 1]}"
    local i command="" next=0
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${COMP_WORDS[i]}" in
            --log-level) ((i++)) ;;
            -*) ;;
            *)
                command="${COMP_WORDS[i]}"
                next=$((i + 1))
                break
                ;;
        esac
    done
    if [[ -z "$command" ]]; then
        if [[ "$prev" == --log-level ]]; then
            _lu_host_offer "$cur" words debug info warn error
        else
            _lu_host_offer "$cur" words @COMMANDS@ --help --version --log-level
        fi
        return 0
    fi
    local values="" flags="" first="none" rest="none"
    case "$command" in
@ARMS@        *) return 0 ;;
    esac
    if [[ -n "$prev" && " $values " == *" $prev "* ]]; then
        COMPREPLY=()
        return 0
    fi
    if [[ "$cur" == -* ]]; then
        _lu_host_offer "$cur" words $values $flags
        return 0
    fi
    local operand=0 word
    for ((i = next; i < COMP_CWORD; i++)); do
        word="${COMP_WORDS[i]}"
        if [[ " $values " == *" $word "* ]]; then
            ((i++))
        elif [[ "$word" != -* ]]; then
            ((operand++))
        fi
    done
    if ((operand == 0)); then
        _lu_host_offer "$cur" $first
    else
        _lu_host_offer "$cur" $rest
    fi
    return 0
}

complete -o default -F _lu_host lu-host
)sh";

constexpr std::string_view kZshTemplate = R"sh(#compdef lu-host
# zsh completion for lu-host, made by `lu-host completion zsh`.
# Load it: source <(lu-host completion zsh) after compinit, or save it as
# _lu-host in a folder of $fpath.

# _lu_host_offer KIND [WORDS...]
_lu_host_offer() {
    local kind="$1"
    shift
    case "$kind" in
        words) compadd -- "$@" ;;
        liveupdates) compadd -- ${(f)"$("${words[1]}" completion liveupdates 2>/dev/null)"} ;;
        files) _files ;;
    esac
}

_lu_host() {
    local cur="${words[CURRENT]}" prev="${words[CURRENT-1]}"
    local i command="" next=0
    for ((i = 2; i < CURRENT; i++)); do
        case "${words[i]}" in
            --log-level) ((i++)) ;;
            -*) ;;
            *)
                command="${words[i]}"
                next=$((i + 1))
                break
                ;;
        esac
    done
    if [[ -z "$command" ]]; then
        if [[ "$prev" == --log-level ]]; then
            _lu_host_offer words debug info warn error
        else
            _lu_host_offer words @COMMANDS@ --help --version --log-level
        fi
        return
    fi
    local -a values flags
    local first="none" rest="none"
    case "$command" in
@ARMS@        *) return ;;
    esac
    if (( ${values[(Ie)$prev]} )); then
        _files
        return
    fi
    if [[ "$cur" == -* ]]; then
        _lu_host_offer words $values $flags
        return
    fi
    local operand=0
    for ((i = next; i < CURRENT; i++)); do
        if (( ${values[(Ie)${words[i]}]} )); then
            ((i++))
        elif [[ "${words[i]}" != -* ]]; then
            ((operand++))
        fi
    done
    if ((operand == 0)); then
        _lu_host_offer ${=first}
    else
        _lu_host_offer ${=rest}
    fi
}

if [[ "${funcstack[1]}" == _lu-host ]]; then
    _lu_host "$@"
else
    compdef _lu_host lu-host
fi
)sh";
// clang-format on

std::string joined(const std::set<std::string> &words) {
    std::string text;
    for (const std::string &word : words) text += (text.empty() ? "" : " ") + word;
    return text;
}

std::string command_names(std::span<const Command> commands) {
    std::string text;
    for (const Command &command : commands) text += (text.empty() ? "" : " ") + std::string(command.name);
    return text;
}

std::string kinds() {
    std::string text;
    for (const std::string &kind : kind_plurals()) text += (text.empty() ? "" : " ") + kind;
    return text;
}

// An operand as `_lu_host_offer` of both scripts takes it: a kind of
// completion, then the words of Operand::words.
std::string offer_arguments(Operand operand, std::string_view words) {
    switch (operand) {
    case Operand::none: return "none";
    case Operand::files: return "files";
    case Operand::liveupdates: return "liveupdates";
    case Operand::kinds: return "words " + kinds();
    case Operand::words: return "words " + std::string(words);
    }
    return "none";
}

// One `case` arm per command, in the syntax both shells share but for arrays.
std::string command_arms(std::span<const Command> commands, bool zsh) {
    std::string arms;
    for (const Command &command : commands) {
        const std::string values = joined(command.options.values), flags = joined(command.options.flags);
        arms += "        " + std::string(command.name) + ")\n";
        // bash: words in a string; zsh: arrays.
        const std::string open = zsh ? "(" : "\"", close = zsh ? ")" : "\"";
        arms.append("            values=").append(open).append(values).append(close).append("\n");
        arms.append("            flags=").append(open).append(flags).append(close).append("\n");
        arms += "            first=\"" + offer_arguments(command.operands.first, command.operands.words) + "\"\n";
        arms += "            rest=\"" + offer_arguments(command.operands.rest, {}) + "\"\n            ;;\n";
    }
    return arms;
}

std::string filled(std::string_view script, std::span<const Command> commands, bool zsh) {
    std::string text(script);
    const auto replace = [&text](std::string_view key, const std::string &value) {
        const std::size_t at = text.find(key);
        if (at != std::string::npos) text.replace(at, key.size(), value);
    };
    replace("@COMMANDS@", command_names(commands));
    replace("@ARMS@", command_arms(commands, zsh));
    return text;
}

}  // namespace

std::string bash_completion_script(std::span<const Command> commands) { return filled(kBashTemplate, commands, false); }

std::string zsh_completion_script(std::span<const Command> commands) { return filled(kZshTemplate, commands, true); }

}  // namespace liveupdate::host::cli
