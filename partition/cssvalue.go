package partition

import (
	"strconv"
	"strings"
)

// fontSize resolves a CSS font-size against the parent's size in px.
func fontSize(v string, parent float64) (float64, bool) {
	switch v {
	case "xx-small":
		return 9, true
	case "x-small":
		return 10, true
	case "small":
		return 13, true
	case "medium":
		return 16, true
	case "large":
		return 18, true
	case "x-large":
		return 24, true
	case "xx-large":
		return 32, true
	case "xxx-large":
		return 48, true
	case "smaller":
		return parent * 0.83, true
	case "larger":
		return parent * 1.2, true
	}
	var px float64
	if strings.HasSuffix(v, "%") {
		if x, err := strconv.ParseFloat(strings.TrimSpace(v[:len(v)-1]), 64); err == nil {
			px = parent * x / 100
		}
	} else {
		px = lengthPx(v, parent)
	}
	if px <= 0 || px > 1000 {
		return 0, false
	}
	return px, true
}

// lengthPx converts a CSS or attribute length to px; relative lengths
// resolve against em (the element's font size). Percentages and anything
// needing a viewport are unknown (0).
func lengthPx(v string, em float64) float64 {
	v = strings.TrimSpace(v)
	i := 0
	for i < len(v) && (v[i] >= '0' && v[i] <= '9' || v[i] == '.' || v[i] == '-' || v[i] == '+') {
		i++
	}
	if i == 0 {
		return 0
	}
	x, err := strconv.ParseFloat(v[:i], 64)
	if err != nil || x < 0 {
		return 0
	}
	switch strings.TrimSpace(v[i:]) {
	case "", "px":
		return x
	case "pt":
		return x * 4 / 3
	case "pc":
		return x * 16
	case "in":
		return x * 96
	case "cm":
		return x * 96 / 2.54
	case "mm":
		return x * 96 / 25.4
	case "em":
		return x * em
	case "rem":
		return x * 16
	}
	return 0
}

// backgroundColor finds the colour in a background or background-color
// value; "" means none or unknown (transparent, images, gradients only).
func backgroundColor(v string) string {
	if c := normColor(v); c != "" {
		return c
	}
	for _, f := range splitCSSValue(v) {
		if c := normColor(f); c != "" {
			return c
		}
	}
	return ""
}

// splitCSSValue splits a value on spaces outside parentheses.
func splitCSSValue(v string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ' ', '\t', '\n':
			if depth == 0 {
				if i > start {
					out = append(out, v[start:i])
				}
				start = i + 1
			}
		}
	}
	if start < len(v) {
		out = append(out, v[start:])
	}
	return out
}

var namedColors = map[string]string{
	"black": "#000000", "white": "#ffffff", "red": "#ff0000", "green": "#008000", "blue": "#0000ff",
	"yellow": "#ffff00", "gray": "#808080", "grey": "#808080", "silver": "#c0c0c0", "maroon": "#800000",
	"purple": "#800080", "fuchsia": "#ff00ff", "magenta": "#ff00ff", "lime": "#00ff00", "olive": "#808000",
	"navy": "#000080", "teal": "#008080", "aqua": "#00ffff", "cyan": "#00ffff", "orange": "#ffa500",
	"lightgray": "#d3d3d3", "lightgrey": "#d3d3d3", "darkgray": "#a9a9a9", "darkgrey": "#a9a9a9",
	"whitesmoke": "#f5f5f5", "gainsboro": "#dcdcdc", "beige": "#f5f5dc", "ivory": "#fffff0",
	"darkblue": "#00008b", "darkred": "#8b0000", "darkgreen": "#006400", "lightblue": "#add8e6",
	"lightyellow": "#ffffe0", "pink": "#ffc0cb", "brown": "#a52a2a", "gold": "#ffd700",
}

// normColor normalises a colour value to "#rrggbb" (lower case); it
// returns "" for transparent, keywords it cannot resolve, and non-colours.
func normColor(v string) string {
	v = strings.TrimSpace(strings.ToLower(v))
	if v == "" {
		return ""
	}
	if c, ok := namedColors[v]; ok {
		return c
	}
	if v[0] == '#' {
		h := v[1:]
		for i := 0; i < len(h); i++ {
			if !isHex(h[i]) {
				return ""
			}
		}
		switch len(h) {
		case 3, 4:
			return "#" + string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
		case 6, 8:
			if len(h) == 8 && h[6:] == "00" {
				return ""
			}
			return "#" + h[:6]
		}
		return ""
	}
	if strings.HasPrefix(v, "rgb(") || strings.HasPrefix(v, "rgba(") {
		open, end := strings.IndexByte(v, '('), strings.IndexByte(v, ')')
		if end < open {
			return ""
		}
		f := strings.FieldsFunc(v[open+1:end], func(r rune) bool { return r == ',' || r == ' ' || r == '/' })
		if len(f) < 3 {
			return ""
		}
		if len(f) >= 4 {
			if a, err := strconv.ParseFloat(strings.TrimSuffix(f[3], "%"), 64); err == nil && a == 0 {
				return ""
			}
		}
		var b [3]byte
		for i := 0; i < 3; i++ {
			s := f[i]
			pct := strings.HasSuffix(s, "%")
			x, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
			if err != nil {
				return ""
			}
			if pct {
				x = x * 255 / 100
			}
			b[i] = byte(max(0, min(255, x+0.5)))
		}
		const hexd = "0123456789abcdef"
		return string([]byte{'#', hexd[b[0]>>4], hexd[b[0]&15], hexd[b[1]>>4], hexd[b[1]&15], hexd[b[2]>>4], hexd[b[2]&15]})
	}
	// Old pages write bare hex in bgcolor attributes ("ffcc00").
	if len(v) == 6 {
		for i := 0; i < 6; i++ {
			if !isHex(v[i]) {
				return ""
			}
		}
		return "#" + v
	}
	return ""
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }
