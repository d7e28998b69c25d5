//go:build !race

package warcio

const raceEnabled = false
