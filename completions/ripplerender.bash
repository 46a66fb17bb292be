# bash completion for ripplerender; installed as
# $(PREFIX)/share/bash-completion/completions/ripplerender (loaded on demand
# by bash-completion), or source it from ~/.bashrc. Needs nothing else.

# Files whose names end in one of the given extensions (case-insensitive), and
# directories to descend into; appended to COMPREPLY.
_ripplerender_files()
{
    local cur=$1 f ext; shift
    local IFS=$'\n'
    for f in $(compgen -d -- "$cur"); do COMPREPLY+=("$f/"); done
    for f in $(compgen -f -- "$cur"); do
        [[ -d $f ]] && continue
        for ext in "$@"; do
            if [[ ${f,,} == *"$ext" ]]; then COMPREPLY+=("$f"); break; fi
        done
    done
}

_ripplerender()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local opts="-o --output -s --set -f --frames -j --threads -y --overwrite --hash --check
        --validate --print-scene --probes --manifest --progress -q --quiet -h --help -V --version
        --range --chunk --save-state --state-every --load-state --resume --preset"
    # the presets built into the program (scenes/presets; tests/cli/test_presets.sh)
    local presets="double-slit harbour pond pool rain-on-glass wake"
    local keys="grid.width= grid.height= grid.cell_size= time.fps= time.frames= time.steps_per_frame= time.preroll=
        time.loop=
        solver.type= solver.damping= solver.damping_shift= solver.half_life= solver.neighbors= solver.flow=
        solver.blend= solver.passes= solver.speed= solver.speed_map= solver.speed_range= solver.decay=
        solver.gravity= solver.surface_tension= solver.density= solver.depth= solver.viscosity=
        solver.depth_map= solver.depth_range= solver.wavelength= solver.frequency=
        boundary= absorb_width=
        drops. rain. oscillators. movers. initial. probes. obstacles.
        render.mode= render.colormap= render.range= render.width= render.height= render.obstacle_color=
        render.light= render.water_color= render.specular= render.background= render.refraction= render.depth=
        render.height_scale= render.sky_color= render.shininess= render.reflectivity= render.floor=
        render.floor_color= render.alpha= render.normal_convention= render.video_end= render.atlas=
        render.depth_map= render.depth_range=
        output.path= output.codec= output.crf= output.preset= output.pix_fmt= output.bit_depth=
        output.exr_compression= output.format= output.compression="
    COMPREPLY=()
    # --option=value: complete the value as if it were the next word. Bash
    # splits at "=" (COMP_WORDBREAKS): the words are then --option = value.
    if [[ $cur == = ]]; then
        cur=""
    elif [[ $prev == = && $COMP_CWORD -ge 2 ]]; then
        prev=${COMP_WORDS[COMP_CWORD-2]}
    elif [[ $cur == --*=* ]]; then
        prev=${cur%%=*}; cur=${cur#*=}
    fi
    # ripplerender join IN... -o OUT [-y]: videos or manifests
    if [[ ${COMP_WORDS[1]} == join && $COMP_CWORD -ge 2 ]]; then
        if [[ $prev == -o || $prev == --output || $cur != -* ]]; then
            _ripplerender_files "$cur" .mp4 .mkv .mov .webm .json
            compopt -o nospace 2> /dev/null
        else
            COMPREPLY=($(compgen -W "-o --output -y --overwrite -h --help" -- "$cur"))
        fi
        return
    fi
    case $prev in
        -o|--output)   # the extensions of the sink table (tests/cli/test_sink_table.sh)
            _ripplerender_files "$cur" .mp4 .mkv .mov .webm .gif .png .framemd5 .framehash .npy .exr
            compopt -o nospace 2> /dev/null; return ;;
        --check)
            _ripplerender_files "$cur" .framemd5 .framehash .txt .md5
            compopt -o nospace 2> /dev/null; return ;;
        --probes)
            _ripplerender_files "$cur" .csv; compopt -o nospace 2> /dev/null; return ;;
        --manifest)
            _ripplerender_files "$cur" .json; compopt -o nospace 2> /dev/null; return ;;
        --progress)
            COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --preset)
            COMPREPLY=($(compgen -W "$presets list" -- "$cur")); return ;;
        --save-state)
            COMPREPLY=($(compgen -d -- "$cur")); compopt -o nospace 2> /dev/null; return ;;
        --load-state)
            _ripplerender_files "$cur" .json; compopt -o nospace 2> /dev/null; return ;;
        -s|--set)
            COMPREPLY=($(compgen -W "$keys" -- "$cur")); compopt -o nospace 2> /dev/null; return ;;
        -f|--frames|-j|--threads|--range|--state-every)
            return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    # SCENE: a JSON file (or - for standard input)
    _ripplerender_files "$cur" .json
    [[ $cur == "" ]] && COMPREPLY+=("-")
    [[ $COMP_CWORD == 1 && -n $cur ]] && COMPREPLY+=($(compgen -W "join" -- "$cur"))
    compopt -o nospace 2> /dev/null
}
complete -F _ripplerender ripplerender
