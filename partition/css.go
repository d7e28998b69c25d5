package partition

// The CSS the partition reads, one job a file: this file holds the rules'
// model (properties, declarations, sheets, bounds); cssparse.go parses
// sheets and selectors, cssmedia.go evaluates media queries, cssselect.go
// matches selectors to elements, csscascade.go orders declarations into a
// Style per element, cssvalue.go reads property values (sizes, lengths,
// colours).

// Bounds on style-sheet work, so that a giant or hostile sheet costs at
// most a fixed amount per page. What lies beyond them is ignored, as a
// property the partition cannot know.
const (
	maxSheetBytes = 1 << 20 // bytes of one sheet that are parsed
	maxRules      = 20000   // selector rules kept per page
	maxMatchSteps = 4 << 20 // compound-selector tests per page
)

// The properties the partition reads; everything else is dropped at
// parse time.
const (
	propFontSize = iota
	propFontWeight
	propColor
	propBackground
	propWidth
	propHeight
	propDisplay
	propVisibility
	numProps
)

func propIndex(name string) int {
	switch name {
	case "font-size":
		return propFontSize
	case "font-weight":
		return propFontWeight
	case "color":
		return propColor
	case "background-color", "background":
		return propBackground
	case "width":
		return propWidth
	case "height":
		return propHeight
	case "display":
		return propDisplay
	case "visibility":
		return propVisibility
	}
	return -1
}

type cssDecl struct {
	prop      int
	val       string
	important bool
}

// cssRule is one selector of a rule with the rule's declarations;
// parts[len-1] is the subject, combs[i] joins parts[i] and parts[i+1]
// (' ' descendant, '>' child).
type cssRule struct {
	parts []compound
	combs []byte
	spec  int // specificity: ids<<16 | classes<<8 | tags
	order int // source order across all sheets
	decls []cssDecl
}

// styleSheets is every rule of a page, indexed by the subject compound's
// most selective part.
type styleSheets struct {
	byID    map[string][]*cssRule
	byClass map[string][]*cssRule
	byTag   map[string][]*cssRule
	any     []*cssRule
	all     []*cssRule // every rule in source order
	n       int
}

func newStyleSheets() *styleSheets {
	return &styleSheets{byID: map[string][]*cssRule{}, byClass: map[string][]*cssRule{}, byTag: map[string][]*cssRule{}}
}
