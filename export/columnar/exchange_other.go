//go:build !linux

package columnar

// exchange reports errNoExchange: publish falls back to two renames.
func exchange(a, b string) error { return errNoExchange }
