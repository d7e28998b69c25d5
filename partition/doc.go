// Package partition splits one captured HTML page into a layout and a
// tree of blocks, as the page-block approach to web archiving (Song et
// al., Journal of Software 19(2), 2008) defines them, adapted to today's
// HTML and to working offline, without a browser.
//
// Words:
//
//   - A block is a closed, visually and topically independent region of
//     a page: a header, a menu, an article, a paragraph. Every block is a
//     byte span [Start, End) of the original document, never a
//     re-serialisation: the bytes of one DOM node, or of a run of sibling
//     nodes (a FragmentNode) such as loose text between line breaks or a
//     heading with the paragraphs of its section.
//   - Blocks nest. The block tree is built level by level: level 1
//     divides the page into its top regions; level n+1 divides each
//     level-n block that can be divided; a block that cannot be divided
//     stays as it is. A fixed partition level (Options.Level) is the
//     depth of the tree that is kept; the default, LevelAdaptive,
//     divides each block while it holds several regions (landmarks, a
//     menu beside an article, most of the page's text) and keeps it as
//     soon as it is one.
//   - A leaf is a kept block: a block at the requested level, or an
//     undividable block above it. Leaves are disjoint and in document
//     order (Result.Leaves).
//   - A block's path names its position in the block tree, "1.3.2" being
//     the second child of the third child of the first level-1 block. The
//     same bytes always give the same paths.
//   - The document's <head> is a level-1 block of its own (invisible, but
//     it changes often without any visible change), so that the layout
//     stays the page's skeleton.
//   - The layout is the page with every leaf cut out: the len(Leaves)+1
//     byte runs (gaps) around the leaves. Layout plus leaves reassemble
//     to exactly the input, for any input bytes.
//   - A block's topic is a short text naming it: a heading-like text of
//     the block, or its most frequent content words. Its label says what
//     the block is for (title, content, navigation, advertisement, ...).
//
// Blocks are found by ExtractBlock with the eleven ordered IsBlock rules
// (rules.go; docs/PARTITION.md) over an offset-keeping tree built from
// golang.org/x/net/html's tokenizer (its Raw spans) and over what is knowable of
// rendering without a layout engine: tag classes, HTML attributes,
// inline styles and style sheets (StyleOf).
//
// Minimal use:
//
//	res, err := partition.Partition(page, partition.Options{})
//	if err != nil {
//		return err // only for absurd inputs (over 1 GiB)
//	}
//	for _, b := range res.Leaves {
//		fmt.Println(b.Path, b.Label, b.Topic, len(res.BlockBytes(b)))
//	}
//	archived := res.Layout.Encode() // store with the leaves' bytes
//	...
//	l, err := partition.Decode(archived)
//	page, err := partition.Reassemble(l, leafBytes) // == the input
//
// Result, its blocks and its layout alias the input document: keep it
// unchanged while they are in use.
//
// To partition many pages, give each worker goroutine its own
// Partitioner (NewPartitioner; not safe for concurrent use). It gives
// the same results as Partition, and keeps what pages share, within
// fixed bounds: the parsed rules of style sheets it has seen (looked up
// by their text), word stems, and the memory of its per-page scratch
// tables.
//
// Two versions of a page are compared block by block with Match: blocks
// with the same bytes are anchors, and the blocks between anchors are
// paired by Similarity (DVS, Feng & Tang 2012: Jaccard of tag-path and
// visual-path shingles, weighted 0.5/0.5, threshold 0.8) or by text
// similarity, so a version that gained one block reports that block as
// added and no cascade of later ones. Each Pair says Identical, Modified,
// Added or Removed.
package partition
