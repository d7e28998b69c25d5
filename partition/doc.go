// Package partition splits one HTML page into a layout and a tree of blocks.
package partition
