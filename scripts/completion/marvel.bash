# bash completion for marvel (installed as share/bash-completion/completions/marvel).
# The commands and each command's options are read from `marvel --help` and `marvel COMMAND --help`,
# so the completion follows the program it completes; file names complete after options that take one.

_marvel()
{
    local cur prev cmd
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    local marvel=${COMP_WORDS[0]}

    if [[ $COMP_CWORD -eq 1 ]]; then
        local commands
        commands=$("$marvel" --help 2>/dev/null | awk '/^commands:/ { on = 1; next } NF == 0 { on = 0 } on { print $1 }')
        mapfile -t COMPREPLY < <(compgen -W "$commands --help --version" -- "$cur")
        return
    fi
    cmd=${COMP_WORDS[1]}

    case $prev in
        --objective)
            mapfile -t COMPREPLY < <(compgen -W "runtime energy edp" -- "$cur")
            return ;;
        --fidelity)
            mapfile -t COMPREPLY < <(compgen -W "maestro corrected" -- "$cur")
            return ;;
        --format)
            mapfile -t COMPREPLY < <(compgen -W "table csv json" -- "$cur")
            return ;;
        --style)
            mapfile -t COMPREPLY < <(compgen -W "rs ws os interstellar dmazerunner genetic" -- "$cur")
            return ;;
        --dataflow)
            mapfile -t COMPREPLY < <(compgen -W "kcp_ws rs xp_ws yxp_os ykp_os" -- "$cur")
            return ;;
        --phase)
            mapfile -t COMPREPLY < <(compgen -W "prefill decode" -- "$cur")
            return ;;
        --timeloop-buffering)
            mapfile -t COMPREPLY < <(compgen -W "1 2" -- "$cur")
            return ;;
        --timeloop-space | --exportable)
            mapfile -t COMPREPLY < <(compgen -W "narrow wide" -- "$cur")
            return ;;
        --model)
            mapfile -t COMPREPLY < <(compgen -W "alexnet vgg16 resnet50 mobilenetv2 gemm mlp-m mlp-l lstm-m \
                lstm-l rhn bert-base bert-base-512 gpt2 llama-7b llama-7b-block llama3-8b llama3-8b-block" \
                -- "$cur")
            mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$cur")
            return ;;
        --out | --experiments | --export-timeloop | --reference | --accelerators | --best-hw | --cache)
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            return ;;
        --hw)
            mapfile -t COMPREPLY < <(compgen -W "P1 P2 eyeriss_dram edge1024_dram" -- "$cur")
            mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$cur")
            return ;;
        --op | --mapping | --project | --export-mdc | --pareto-csv)
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            return ;;
        --threads | --seconds | --cases | --seed | --batch | --layer | --max-seconds | --vary \
            | --pe-util-bound | --widen-above | --genetic-evaluations | --genetic-seed \
            | --offchip-candidates | --frames | --seq-len | --kv-len)
            return ;;
    esac

    if [[ $cur == -* ]]; then
        local options
        options=$("$marvel" "$cmd" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
        mapfile -t COMPREPLY < <(compgen -W "$options --help" -- "$cur")
        return
    fi
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -o filenames -o bashdefault -F _marvel marvel
