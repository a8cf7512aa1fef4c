package sidebyside

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time (user + system, all threads) this process has used.
// On a machine shared with other work, CPU time is the stable measure of
// how much work a solve took; wall time depends on what else runs.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Timing measures wall and CPU time of a section.
type Timing struct {
	wall time.Time
	cpu  time.Duration
}

// Start begins a measurement.
func Start() Timing { return Timing{wall: time.Now(), cpu: CPUTime()} }

// Stop returns the elapsed wall and CPU time.
func (t Timing) Stop() (wall, cpu time.Duration) { return time.Since(t.wall), CPUTime() - t.cpu }

// Rates turns a measurement of n solves of pods pods into pods per second
// of wall time and pods per second of CPU time.
func Rates(pods, n int, wall, cpu time.Duration) (perSec, perCPUSec float64) {
	perSec = float64(pods) * float64(n) / wall.Seconds()
	if cpu > 0 {
		perCPUSec = float64(pods) * float64(n) / cpu.Seconds()
	}
	return perSec, perCPUSec
}
