// Command blockwarc converts web-archive crawl dumps (WARC and ARC) into a
// block-level delta archive, Parquet tables and a storage report.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
)

// Exit statuses, one place for the whole CLI (listed in -help).
const (
	exitOK      = 0 // everything read and written
	exitFailure = 1 // the command failed
	exitUsage   = 2 // bad flags or arguments
	exitSkipped = 3 // finished, but some input was skipped (malformed, or with no WARC form)
)

// command is one subcommand: its one-line summary and its entry point.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

func commands() map[string]command {
	return map[string]command{
		"index":   {"write a CDXJ index of WARC/ARC inputs", runIndex},
		"blocks":  {"show the block partition of one HTML page", runBlocks},
		"ingest":  {"create or extend a block-level delta archive", runIngest},
		"cat":     {"write one capture from an archive, byte for byte", runCat},
		"diff":    {"show what changed on a page between two captures, block by block", runDiff},
		"ls":      {"list an archive's URLs, or its captures", runLs},
		"version": {"print blockwarc's version", runVersion},
		"verify":  {"check every object and record of an archive", runVerify},
		"compact": {"write a dense copy of an archive ingested a crawl at a time", runCompact},
		"prove":   {"prove from the originals that ingested files restore as given (before deleting them)", runProve},
		"repair":  {"salvage a damaged archive: correct through parity, rebuild indexes, name what is lost", runRepair},
		"tables":  {"write an archive's Parquet/Arrow tables (ingest does it too)", runTables},
		"report":  {"print the storage report of an archive (-html: with charts)", runReport},
		"serve":   {"serve archives to replay: CDX Server API, raw captures, Memento", runServe},
		"upgrade": {"rewrite an archive of an older development format at the current one, in place", runUpgrade},

		"export-warc": {"re-export archived records as a per-record-gzip WARC", runExportWARC},
		"export-wacz": {"package archived records as a WACZ (WARC, CDXJ index, pages) for replay tools", runExportWACZ},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 {
		usage(stderr, cmds)
		return exitUsage
	}
	if isHelpFlag(args[0]) || args[0] == "help" {
		// 'blockwarc help COMMAND' is 'blockwarc COMMAND -help'.
		if args[0] == "help" && len(args) > 1 {
			if c, ok := cmds[args[1]]; ok {
				return c.run(ctx, []string{"-help"}, stdout, stdout)
			}
			fmt.Fprintf(stderr, "blockwarc help: unknown command %q\n", args[1])
			usage(stderr, cmds)
			return exitUsage
		}
		// Help asked for is the output, not an error: on standard output.
		usage(stdout, cmds)
		return exitOK
	}
	if args[0] == "-version" || args[0] == "--version" {
		return runVersion(ctx, nil, stdout, stderr)
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "blockwarc: unknown command %q\n", args[0])
		usage(stderr, cmds)
		return exitUsage
	}
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if isHelpFlag(a) {
			return c.run(ctx, args[1:], stdout, stdout)
		}
	}
	return c.run(ctx, args[1:], stdout, stderr)
}

// isHelpFlag reports whether a is one of the spellings of -help that the
// flag package and people use.
func isHelpFlag(a string) bool {
	switch a {
	case "-h", "-help", "--help", "--h":
		return true
	}
	return false
}

const versionAbout = `Print blockwarc's version, the commit it was built from (when built from
a checkout with version control information), and the Go version and
platform it was built for. 'blockwarc -version' does the same.`

// runVersion prints the module version and the commit it was built from
// (from the Go build information; "(devel)" and the VCS revision for a
// build from a checkout).
func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", "", versionAbout, stderr)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "blockwarc version: takes no arguments")
		fs.Usage()
		return exitUsage
	}
	fmt.Fprintf(stdout, "%s %s %s/%s\n", versionLine(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return exitOK
}

// versionLine is "blockwarc VERSION [COMMIT[+modified]]" from the Go
// build information.
func versionLine() string {
	v, rev, dirty := "(unknown)", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		v = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	line := "blockwarc " + v
	if rev != "" {
		line += " " + rev[:min(12, len(rev))]
		if dirty {
			line += "+modified"
		}
	}
	return line
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: blockwarc COMMAND [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'blockwarc COMMAND -help' (or 'blockwarc help COMMAND') for a command's flags.")
	fmt.Fprint(w, exitStatusHelp)
}

const exitStatusHelp = `
exit status:
  0  everything was read and written
  1  failure (the error is printed on stderr)
  2  usage error
  3  finished, but some input was skipped: malformed records (of damaged
     compressed input, what does not decompress is lost: ingest says how
     many bytes), records with no WARC form (ARC records in export-warc),
     or a truncated record written by cat; the count is on stderr
`

// newFlagSet returns a FlagSet that reports errors instead of exiting and
// prints the command's usage line, its flags and the exit statuses.
func newFlagSet(name, argsUsage, about string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		flags := 0
		fs.VisitAll(func(*flag.Flag) { flags++ })
		if flags == 0 {
			fmt.Fprintf(stderr, "%s\n\n%s\n", strings.TrimSpace("usage: blockwarc "+name+" "+argsUsage), about)
		} else {
			fmt.Fprintf(stderr, "usage: blockwarc %s [flags] %s\n\n%s\n\nflags:\n", name, argsUsage, about)
			fs.PrintDefaults()
		}
		fmt.Fprint(stderr, exitStatusHelp)
	}
	return fs
}

// parseFlags parses args; it returns (code, false) when the command should
// stop (help asked: 0; bad flags: 2).
func parseFlags(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		return exitUsage, false
	}
	return 0, true
}
