//go:build race

package chunk

// raceEnabled: the race detector allocates beside the code measured.
const raceEnabled = true
