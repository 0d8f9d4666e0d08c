# bash completion for thrashtop: options and subcommands as --help prints
# them, plot names from --list-plots, run IDs from `history list`, kernels
# from `kernel list`, /boot and apt-cache.

# An option whose value is optional, --wait[=SECONDS], both ways.
_thrashtop_opts()
{
	"$1" "${@:2}" --help 2>/dev/null |
		grep -oE -- '(^|[ ,[])--?[a-zA-Z][a-zA-Z-]*(=|\[=)?' |
		sed 's/^[ ,[]//; s/^\(.*\)\[=$/\1\n\1=/' | sort -u
}

# The run IDs of the history the command line names (--history PATH).
_thrashtop_ids()
{
	local prog=$1 db="" i
	for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
		case ${COMP_WORDS[i]} in
		--history) db=${COMP_WORDS[i + 1]} ;;
		--history=*) db=${COMP_WORDS[i]#--history=} ;;
		esac
	done
	"$prog" history ${db:+--history="$db"} list --limit=100 2>/dev/null |
		awk '$1 ~ /^[0-9]+$/ { print $1 }'
}

# What --kernel and `kernel boot` take by name: the cached kernels and
# those installed in /boot (files and directories, a .deb or a build tree,
# besides).
_thrashtop_kernels()
{
	local f
	"$1" kernel list 2>/dev/null | awk '{ print $1 }'
	for f in /boot/vmlinuz-*; do
		[ -f "$f" ] && echo "${f#/boot/vmlinuz-}"
	done
}

# `thrashtop kernel fetch|list|boot ...`
_thrashtop_kernel()
{
	local cur=$1 prev=$2 prog=$3
	if [ "$COMP_CWORD" -eq 2 ]; then
		COMPREPLY=($(compgen -W "fetch list boot" -- "$cur"))
		return
	fi
	case ${COMP_WORDS[2]} in
	fetch)	# the generic amd64 images apt knows
		COMPREPLY=($(compgen -W "$(apt-cache pkgnames linux-image- 2>/dev/null |
			grep -E '^linux-image-[0-9][^ ]*-amd64$' | grep -vE -- '-(cloud|rt)-amd64$')" \
			-- "$cur")) ;;
	boot)
		case $prev in
		--boot-mem|--cpus|--append|--timeout) return ;;
		esac
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--boot-mem --cpus --append --timeout --" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_thrashtop_kernels "$prog")" -- "$cur")
				   $(compgen -f -- "$cur"))
		fi ;;
	esac
}

_thrashtop()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local prog=${COMP_WORDS[0]} i sub="" words

	for ((i = 1; i < COMP_CWORD; i++)); do
		[ "${COMP_WORDS[i]}" = -- ] && { COMPREPLY=($(compgen -c -- "$cur")); return; }
	done
	[ "${COMP_WORDS[1]}" = history ] && [ "$COMP_CWORD" -gt 1 ] && sub=history
	if [ "${COMP_WORDS[1]}" = kernel ] && [ "$COMP_CWORD" -gt 1 ]; then
		_thrashtop_kernel "$cur" "$prev" "$prog"
		return
	fi
	# "--opt=value" arrives as "--opt" "=" "value" with the default COMP_WORDBREAKS
	if [ "$cur" = = ]; then
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		cur=""
	elif [ "$prev" = = ]; then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi
	case $prev in
	--series)
		words=$("$prog" --list-plots 2>/dev/null | awk 'NR > 1 && NF >= 4 { print $1 }')
		local pre=${cur%"${cur##*,}"}
		COMPREPLY=($(compgen -P "$pre" -W "$words" -- "${cur##*,}"))
		return ;;
	--format)
		if [ -n "$sub" ]; then words="text csv json time table svg gnuplot asciicast pcp"; else words="csh gnu gnu-full"; fi
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return ;;
	--global-with)
		COMPREPLY=($(compgen -W "auto hugetlb balloon" -- "$cur"))
		return ;;
	--history|--svg|--cast)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--host)
		COMPREPLY=($(compgen -A hostname -- "$cur"))
		return ;;
	--kernel)
		COMPREPLY=($(compgen -W "$(_thrashtop_kernels "$prog")" -- "$cur") $(compgen -f -- "$cur"))
		return ;;
	--knob|--sysctl)
		words=$(cd /proc/sys/vm 2>/dev/null && printf 'vm.%s\n' *)
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return ;;
	-n|--elems|-m|--mb|-p|--procs|-s|--seed|-r|--repeat|-d|--delay|-L|--label|--mem|--global|\
	--swap|--sweep|--session|--limit|--rows|--cols|--cov|--outlier-z|--speed|--size)
		return ;;
	esac
	if [ -z "$sub" ]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$(_thrashtop_opts "$prog")" -- "$cur"))
		elif [ "$COMP_CWORD" -eq 1 ]; then
			COMPREPLY=($(compgen -W "history kernel $(_thrashtop_opts "$prog")" -- "$cur"))
		fi
		[[ ${COMPREPLY[0]-} == *= ]] && compopt -o nospace 2>/dev/null
		return
	fi
	# the command: the first word that is no option and no option's value
	local cmd="" cast="" pcp=""
	for ((i = 2; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--format=asciicast) cast=1 ;;
		--format=pcp) pcp=1 ;;
		asciicast|pcp)
			if [[ ${COMP_WORDS[i - 1]} == --format ||
				${COMP_WORDS[i - 1]} == = && ${COMP_WORDS[i - 2]} == --format ]]; then
				if [ "${COMP_WORDS[i]}" = pcp ]; then pcp=1; else cast=1; fi
			fi ;;
		esac
		[ -n "$cmd" ] && continue
		case ${COMP_WORDS[i]} in -*|=) continue ;; esac
		case ${COMP_WORDS[i - 1]} in
		=|-L|--label|--format|--kernel|--host|--session|--limit|--rows|--cols|--cov|--outlier-z|\
		--history|--svg|--series|--speed|--cast|--size) continue ;;
		esac
		cmd=${COMP_WORDS[i]}
	done
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_thrashtop_opts "$prog" history)" -- "$cur"))
		[[ ${COMPREPLY[0]-} == *= ]] && compopt -o nospace 2>/dev/null
	elif [ -z "$cmd" ]; then
		words=$("$prog" --help 2>/dev/null | sed -n 's/^ *thrashtop history \[\(.*\)\]$/\1/p' |
			tr '|' '\n' | awk '{ print $1 }')
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
	else
		case $cmd in
		show|rm|compare|plot|replay) COMPREPLY=($(compgen -W "$(_thrashtop_ids "$prog")" -- "$cur")) ;;
		export)
			[ -n "$cast$pcp" ] && COMPREPLY=($(compgen -W "$(_thrashtop_ids "$prog")" -- "$cur"))
			# --format=pcp: the run IDs, then the directory
			[ -n "$pcp" ] && COMPREPLY+=($(compgen -d -- "$cur")) ;;
		import) COMPREPLY=($(compgen -f -- "$cur")) ;;
		esac
	fi
}
complete -F _thrashtop thrashtop
