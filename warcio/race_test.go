//go:build race

package warcio

// raceEnabled: the race detector allocates, and touches shadow memory,
// beside the code a test measures.
const raceEnabled = true
