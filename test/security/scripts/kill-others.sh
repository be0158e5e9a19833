# Attack 4: sends SIGKILL to every process outside the call's own process group, and says
# what happened to each.
mine=$(cut -d' ' -f5 /proc/$$/stat)
for d in /proc/[0-9]*; do
  p=${d#/proc/}
  # The namespace's init ignores SIGKILL sent from inside it: nothing to learn there.
  [ "$p" = 1 ] && continue
  read -r stat < "$d/stat" 2>/dev/null || continue
  fields=(${stat##*) })
  [ "${fields[2]}" = "$mine" ] && continue
  read -r comm < "$d/comm"
  if err=$(kill -9 "$p" 2>&1); then echo "killed $p $comm"; else echo "refused $p $comm: $err"; fi
done
echo done
