# Sourced by deps.sh and windows-deps.sh: sets the array missing to the
# names in the array packages that dpkg does not list as installed. One
# dpkg-query for all: it runs on every make.
declare -A have=()
while read -r name want flag state; do
	if [ "$want $flag $state" = "install ok installed" ]; then have[$name]=1; fi
done < <(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null || true)
missing=()
for p in "${packages[@]}"; do
	[ -n "${have[$p]:-}" ] || missing+=("$p")
done
