#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_no_external_citations.sh -- every citation in the repository names a
# document of the repository, and every cited section exists.
#
# Over every tracked file (git ls-files; without git, every file outside
# build directories), text files only, this file excepted:
#   1. no reference to the design drafts the project started from, which
#      are not part of it: a path into ../shared, "seeds/", "seed 000"
#      (any three digits), "seed section", the Emacs "hook map";
#   2. every NAME.md mentioned exists in the repository (a path must match
#      the end of a tracked path, a bare name a tracked file's base name);
#   3. every "DESIGN.md §N" / "§N.M" / "section N" (also lists such as
#      "§2 to §6", and a citation broken over a comment line) is a heading
#      "## N." or "### N.M" of docs/DESIGN.md, and so is every §N inside
#      docs/DESIGN.md itself;
#   4. every "FORMAT.md N" / "FORMAT.md section N.M" is a heading of
#      docs/FORMAT.md, and every rule F-n cited anywhere is a rule **F-n**
#      of docs/FORMAT.md;
#   5. every 'NAME.md, "Title"' names a heading of that document that
#      starts with Title.
#
# Positive control first: the same checker runs on a scratch tree with one
# violation of each kind (which must all be reported) and one clean file
# (which must not be).  Needs perl (perl-base is essential in Debian).

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
self=tests/scripts/test_no_external_citations.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/check.pl" <<'PERL'
use strict;
use warnings;

# Usage: check.pl ROOT SELF < list of files (relative to ROOT)
my ($root, $self) = @ARGV;
my @files = grep { length } map { chomp; s{^\./}{}; $_ } <STDIN>;
my %tracked = map { $_ => 1 } @files;
my %base;
for (@files) { my $b = $_; $b =~ s{.*/}{}; $base{$b} = 1; }

sub slurp {
  my ($p) = @_;
  open my $fh, '<', "$root/$p" or return undef;
  local $/;
  my $s = <$fh>;
  close $fh;
  return $s;
}

sub headings {
  my ($p) = @_;
  my $s = slurp ($p);
  my (%num, @titles);
  return (\%num, \@titles) unless defined $s;
  for (split /\n/, $s) {
    if (/^##\s+(\d+)\.\s/) { $num{$1} = 1; }
    if (/^###\s+(\d+\.\d+)\.?\s/) { $num{$1} = 1; }
    if (/^#+\s+(.*?)\s*$/) { push @titles, $1; }
  }
  return (\%num, \@titles);
}

my ($design, undef) = headings ('docs/DESIGN.md');
my ($format, undef) = headings ('docs/FORMAT.md');
my %rules;
{
  my $f = slurp ('docs/FORMAT.md') // '';
  $rules{$1} = 1 while $f =~ /\*\*F-(\d+[a-z]?)\*\*/g;
}

my $fails = 0;
sub fail {
  my ($file, $text, $pos, $what) = @_;
  my $line = 1 + (substr ($text, 0, $pos) =~ tr/\n//);
  print "$file:$line: $what\n";
  $fails++;
}

# Resolve a .md reference to a tracked path, or undef.
sub resolve_md {
  my ($name) = @_;
  $name =~ s{^\./}{};
  return undef if $name =~ m{(^|/)\.\./};
  if ($name =~ m{/}) {
    for (@files) { return $_ if $_ eq $name || substr ($_, -length ($name) - 1) eq "/$name"; }
    return undef;
  }
  return undef unless $base{$name};
  for (@files) { return $_ if $_ eq $name || m{/\Q$name\E$}; }
  return undef;
}

for my $file (@files) {
  next if $file eq $self;
  my $text = slurp ($file);
  next unless defined $text;
  next if $text =~ /\0/;

  # 1. The drafts outside the repository.
  while ($text =~ m{(\.\./shared\b|shared/seeds|\bseeds/|\bseed[ _-]?\d{3}\b|\bseed\s+(?:section|§)|\bhook[- ]map\b)}gi) {
    fail ($file, $text, $-[0], "cites a document outside the repository: \"$1\"");
  }

  # 2. Every NAME.md exists.
  while ($text =~ m{((?:https?://)?[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md)\b}g) {
    my ($name, $pos) = ($1, $-[0]);
    next if $name =~ m{^https?://};
    fail ($file, $text, $pos, "names $name, which is not in the repository")
      unless defined resolve_md ($name);
  }

  # 3. DESIGN.md sections.  $sp also crosses a line break and the next
  # line's comment leader, so that a citation broken over two comment
  # lines reads as one.
  my $sp = qr{(?:[ \t]|\n[ \t]*(?:\*(?!\*)|#+|;+|//)?)+};
  my $num = qr{(?:§|section$sp)\d+(?:\.\d+)?};
  my $list = qr{$num(?:$sp?(?:,|and|to|or|-|–)$sp?(?:§|section$sp)?\d+(?:\.\d+)?)*};
  while ($text =~ m{DESIGN\.md,?$sp($list)}g) {
    my ($cite, $pos) = ($1, $-[1]);
    for my $n ($cite =~ /(\d+(?:\.\d+)?)/g) {
      fail ($file, $text, $pos, "DESIGN.md §$n is not a section of docs/DESIGN.md")
        unless $design->{$n};
    }
  }
  if ($file eq 'docs/DESIGN.md') {
    while ($text =~ m{§(\d+(?:\.\d+)?)}g) {
      fail ($file, $text, $-[0], "§$1 is not a section of this document") unless $design->{$1};
    }
  }

  # 4. FORMAT.md sections and rules.
  while ($text =~ m{FORMAT\.md,?$sp(?:section$sp|§)?(\d+(?:\.\d+)?)\b}g) {
    fail ($file, $text, $-[1], "FORMAT.md $1 is not a section of docs/FORMAT.md")
      unless $format->{$1};
  }
  while ($text =~ m{\bF-(\d+[a-z]?)\b}g) {
    fail ($file, $text, $-[0], "rule F-$1 is not in docs/FORMAT.md") unless $rules{$1};
  }

  # 5. Quoted section titles.
  while ($text =~ m{([A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md),?$sp\(?"([^"\n]{2,80})"}g) {
    my ($name, $title, $pos) = ($1, $2, $-[2]);
    my $path = resolve_md ($name);
    next unless defined $path;    # reported by check 2
    my (undef, $titles) = headings ($path);
    next if grep { index ($_, $title) == 0 } @$titles;
    fail ($file, $text, $pos, "$name has no section \"$title\"");
  }
}
print "$fails citation problem(s)\n";
exit ($fails ? 1 : 0);
PERL

command -v perl >/dev/null 2>&1 || { echo "FAIL: perl not found"; exit 1; }

# ---- Positive control: a scratch tree with one violation of each kind.
ctl=$tmp/tree
mkdir -p "$ctl/docs" "$ctl/src"
cat >"$ctl/docs/DESIGN.md" <<'EOF'
# design
## 1. One
### 1.1 Sub
## 2. Two
See §1.1 and §2; not §7.
EOF
cat >"$ctl/docs/FORMAT.md" <<'EOF'
# format
## 3. Header
### 4.1 Chunk
* **F-10** a rule.
EOF
cat >"$ctl/docs/OTHER.md" <<'EOF'
# other
## Metrics
EOF
cat >"$ctl/src/bad.c" <<'EOF'
/* see ../shared/notes.txt */
/* the seed 000 section 4 */
/* the hook map says so */
/* NOWHERE.md */
/* DESIGN.md §3 */
/* (DESIGN.md
 * §9.9) */
/* FORMAT.md 5 and F-99 */
/* docs/OTHER.md, "Missing" */
EOF
cat >"$ctl/src/good.c" <<'EOF'
/* DESIGN.md §1, §1.1 to §2; FORMAT.md section 3, FORMAT.md 4.1, F-10;
   docs/OTHER.md, "Metrics"; an --seed 12345 option and seed files. */
EOF
out=$(cd "$ctl" && find . -type f | sort | perl "$tmp/check.pl" "$ctl" "$self")
fails=0
for want in 'src/bad.c:1: cites a document outside' \
            'src/bad.c:2: cites a document outside' \
            'src/bad.c:3: cites a document outside' \
            'src/bad.c:4: names NOWHERE.md' \
            'src/bad.c:5: DESIGN.md §3 is not a section' \
            'src/bad.c:7: DESIGN.md §9.9 is not a section' \
            'src/bad.c:8: FORMAT.md 5 is not a section' \
            'src/bad.c:8: rule F-99' \
            'src/bad.c:9: docs/OTHER.md has no section "Missing"' \
            'docs/DESIGN.md:5: §7 is not a section'; do
  case $out in
    *"$want"*) ;;
    *) echo "FAIL: control: the checker did not report: $want"; fails=$((fails + 1)) ;;
  esac
done
case $out in
  *good.c*) echo "FAIL: control: a clean file was reported:"; echo "$out" | grep good.c; fails=$((fails + 1)) ;;
esac
case $out in
  *"10 citation problem(s)"*) ;;
  *) echo "FAIL: control: expected exactly 10 problems:"; echo "$out"; fails=$((fails + 1)) ;;
esac

# ---- The repository.
cd "$SRCDIR" || exit 1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  list=$(git ls-files)
else
  list=$(find . -type f ! -path './.git/*' ! -path './build*' | sed 's|^\./||' | sort)
fi
if ! echo "$list" | perl "$tmp/check.pl" "$SRCDIR" "$self"; then
  fails=$((fails + 1))
fi
n=$(echo "$list" | wc -l)
echo "checked $n files"
[ "$fails" -eq 0 ]
