// Command pythoncost measures what a user's grade costs in Go and in
// Python side by side, as `server grade` makes it: the whole process, its
// grading child and, for Python, the zygote and lanes (each reaps its
// own, so the rusage wait4 gives the first process holds them all).
// Rounds alternate the three so that load falls on each alike; medians.
//
// usage: go run ./bench/pythoncost -bin SERVER [-rounds N]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"
)

type variant struct {
	name string
	args []string
}

func main() {
	bin := flag.String("bin", "", "the server binary")
	rounds := flag.Int("rounds", 7, "rounds")
	dir := flag.String("dir", "content/problems/async-refund/reference", "where refund.go and refund.py are")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "usage: pythoncost -bin SERVER [-rounds N]")
		os.Exit(2)
	}
	vs := []variant{
		{"go (interpreted, then the native referee)", []string{"grade", *dir + "/refund.go"}},
		{"go (interpreted, -referee=false)", []string{"grade", "-referee=false", *dir + "/refund.go"}},
		{"python", []string{"grade", *dir + "/refund.py"}},
	}
	// One grade each first: the referee's build cache, the page cache.
	for _, v := range vs {
		run(*bin, v.args)
	}
	cpu := make([][]time.Duration, len(vs))
	wall := make([][]time.Duration, len(vs))
	for range *rounds {
		for i, v := range vs {
			c, w := run(*bin, v.args)
			cpu[i], wall[i] = append(cpu[i], c), append(wall[i], w)
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("rounds %d, load %s", *rounds, load)
	med := func(d []time.Duration) time.Duration { s := slices.Clone(d); slices.Sort(s); return s[len(s)/2] }
	for i, v := range vs {
		fmt.Printf("%-44s cpu %6.0f ms  wall %6.0f ms\n", v.name, ms(med(cpu[i])), ms(med(wall[i])))
	}
	py := len(vs) - 1
	for i := range py {
		fmt.Printf("python / %-35s cpu %.2fx  wall %.2fx\n", vs[i].name, ms(med(cpu[py]))/ms(med(cpu[i])), ms(med(wall[py]))/ms(med(wall[i])))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// run is one `server grade`: its CPU time with every descendant's, and
// its wall time. A failing grade of the reference is the bench's failure.
func run(bin string, args []string) (cpu, wall time.Duration) {
	cmd := exec.Command(bin, args...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall = time.Since(start)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s %v: %v\n%s", bin, args, err, out)
		os.Exit(1)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return cpu, wall
}
