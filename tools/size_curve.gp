# Network size against Elo at equal time, from a size-curve CSV (docs/img/togyz-size-curve*.csv):
# columns 1-5 are network (label), parameters, Elo against the reference net, and the 95 %
# interval's low and high ends; the rest (W-D-L, nodes a move, losses) are for readers.
#
#   gnuplot -e "csv='docs/img/togyz-size-curve-1s.csv'; png='docs/img/togyz-size-curve-1s.png'; \
#     ref='32x4'; what='1 s a move, 40 games, same pool and recipe'" tools/size_curve.gp
#
# Why a script and not kumalak-gate's plotter: the curve is drawn once per measurement,
# by hand, from a table a person fills in; this keeps the picture reproducible from the CSV.
if (!exists("csv") || !exists("png")) {
  print "size_curve.gp: set csv='FILE.csv' and png='FILE.png' with -e"
  exit status 2
}
if (!exists("ref")) ref = "the reference"
if (!exists("what")) what = ""

set terminal pngcairo size 800,500 font ",11"
set output png
set datafile separator ","
set key noautotitle
set title "Togyz: network size vs Elo at equal time".(what eq "" ? "" : " (".what.")")
set xlabel "parameters"
set ylabel sprintf("Elo against %s", ref)
set logscale x
set xrange [6000:1500000]
set yrange [*<-150:150<*]  # at least +-150, wider when a point needs it
set grid
# Header line skipped; the reference row has its interval at 0 0 and draws as a plain point.
plot csv every ::1 using 2:3 with lines lw 2 lc rgb "#009e73", \
     csv every ::1 using 2:3:4:5 with yerrorbars pt 7 ps 1.2 lc rgb "#9400d3", \
     csv every ::1 using 2:3:1 with labels offset 0,1.6
