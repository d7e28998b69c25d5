//go:build !linux

package main

// lowerPriority does nothing off Linux: -nice is a Linux setting.
func lowerPriority(n int) error { return nil }
