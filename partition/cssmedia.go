package partition

import (
	"strings"
)

// The viewport media queries are evaluated against: a desktop browser
// window, the view an archive's visitor most likely had.
const (
	viewportWidth  = 1280.0
	viewportHeight = 800.0
)

// mediaMatches evaluates a media query list for a screen of
// viewportWidth × viewportHeight px in light mode. A list matches when
// any query does; a query matches when its media type is screen or all
// and every feature it tests holds. Features it cannot evaluate count as
// holding, except user preferences, which hold only at their defaults.
func mediaMatches(list string) bool {
	list = strings.ToLower(strings.TrimSpace(list))
	if list == "" {
		return true
	}
	for _, q := range strings.Split(list, ",") {
		if mediaQueryMatches(strings.TrimSpace(q)) {
			return true
		}
	}
	return false
}

func mediaQueryMatches(q string) bool {
	negate := false
	if rest, ok := strings.CutPrefix(q, "not "); ok {
		negate, q = true, strings.TrimSpace(rest)
	}
	q = strings.TrimSpace(strings.TrimPrefix(q, "only "))
	ok := true
	for _, part := range strings.Split(q, " and ") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if part[0] != '(' {
			switch part {
			case "screen", "all":
			default:
				ok = false // print, speech, tv, ...
			}
			continue
		}
		if !mediaFeatureHolds(strings.Trim(part, "() ")) {
			ok = false
		}
	}
	return ok != negate
}

func mediaFeatureHolds(f string) bool {
	name, val, _ := strings.Cut(f, ":")
	name, val = strings.TrimSpace(name), strings.TrimSpace(val)
	px := func() float64 { return lengthPx(val, 16) }
	switch name {
	case "min-width":
		return px() <= viewportWidth
	case "max-width":
		return px() >= viewportWidth
	case "width":
		return px() == viewportWidth
	case "min-height":
		return px() <= viewportHeight
	case "max-height":
		return px() >= viewportHeight
	case "orientation":
		return val == "landscape"
	case "prefers-color-scheme":
		return val == "light"
	case "prefers-reduced-motion", "prefers-reduced-transparency", "prefers-contrast", "forced-colors", "prefers-reduced-data":
		return val == "no-preference" || val == "none"
	}
	return true
}
