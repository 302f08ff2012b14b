# bash completion for svmgo (installed by make install into
# $(PREFIX)/share/bash-completion/completions/svmgo).
_svmgo() {
	local cur=${COMP_WORDS[COMP_CWORD]}
	local cmds="train train-linear predict grid watch import export quantize inspect scale --version --help"
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$cmds" -- "$cur"))
		return
	fi
	local opts
	case ${COMP_WORDS[1]} in
	train) opts="-s -t -d -g -r -c -n -p -m -e -h -b -v -q -seed -iter --scale --progress --max-line-bytes --csv.header --csv.skip-columns -W --weight-column" ;;
	train-linear) opts="-s -c -p -e -B -b -v -C -q -n -seed -iter -twin --scale --progress --max-line-bytes --csv.header --csv.skip-columns -W --weight-column" ;;
	predict) opts="-b -q --max-line-bytes --csv.header --csv.skip-columns" ;;
	export) opts="--format libsvm liblinear" ;;
	quantize) opts="--bits --check --max-line-bytes" ;;
	inspect) opts="-v" ;;
	scale) opts="-l -u -y -s -r" ;;
	watch) opts=$(svmgo watch -h 2>&1 | sed -n 's/^  -\([a-z][a-z.-]*\).*/--\1/p') ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F _svmgo svmgo
