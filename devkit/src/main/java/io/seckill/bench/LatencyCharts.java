package io.seckill.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.HdrHistogram.Histogram;

/**
 * Latency histograms of a bench run, kept as data and drawn: each histogram (values in
 * microseconds) is written as HdrHistogram's percentile distribution ({@code NAME.hgrm}, in
 * milliseconds), and all of them as one percentile-spectrum chart ({@code NAME.png}: latency over
 * percentile on a 1/(1-p) axis, the way HdrHistogram's plotter draws tails).
 */
final class LatencyCharts {

    private static final Color[] SERIES = {
        new Color(0x1f77b4),
        new Color(0xd62728),
        new Color(0x2ca02c),
        new Color(0x9467bd),
        new Color(0xff7f0e),
        new Color(0x17becf),
        new Color(0x8c564b),
        new Color(0xe377c2)
    };
    /** The x axis runs from the median (2 = 1/(1-0.5)) to the 99.999th percentile. */
    private static final double[] TICKS = {50, 90, 99, 99.9, 99.99, 99.999};

    private final Map<String, Histogram> series = new LinkedHashMap<>();

    void add(String name, Histogram h) {
        if (h.getTotalCount() > 0) {
            series.put(name, h);
        }
    }

    boolean isEmpty() {
        return series.isEmpty();
    }

    /** Writes {@code <file>-<series>.hgrm} per series and {@code <file>.png}; returns the files written. */
    List<Path> write(Path dir, String file, String title) throws IOException {
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        for (var e : series.entrySet()) {
            Path hgrm = dir.resolve(
                    file + "-" + e.getKey().replaceAll("[^A-Za-z0-9]+", "-").toLowerCase() + ".hgrm");
            try (PrintStream out = new PrintStream(Files.newOutputStream(hgrm), true, "UTF-8")) {
                out.println("# " + title + ": " + e.getKey() + " (values in ms)");
                e.getValue().outputPercentileDistribution(out, 5, 1000.0);
            }
            written.add(hgrm);
        }
        Path png = dir.resolve(file + ".png");
        ImageIO.write(draw(title), "png", png.toFile());
        written.add(png);
        return written;
    }

    private BufferedImage draw(String title) {
        int w = 900;
        int h = 520;
        int left = 80;
        int right = 30;
        int top = 50;
        int bottom = 60;
        BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, w, h);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
        g.setColor(Color.BLACK);
        g.drawString(title, left, 28);
        double maxMs = series.values().stream()
                .mapToDouble(x -> x.getValueAtPercentile(99.999) / 1000.0)
                .max()
                .orElse(1);
        double yMax = niceCeiling(maxMs);
        double xMax = Math.log10(1 / (1 - 0.99999));
        double xMin = Math.log10(2);
        int plotW = w - left - right;
        int plotH = h - top - bottom;
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        for (int i = 0; i <= 5; i++) {
            double v = yMax * i / 5;
            int y = top + plotH - (int) (plotH * i / 5.0);
            g.setColor(new Color(0xe0e0e0));
            g.drawLine(left, y, left + plotW, y);
            g.setColor(Color.DARK_GRAY);
            g.drawString(String.format(v < 10 ? "%.1f ms" : "%.0f ms", v), 8, y + 4);
        }
        for (double p : TICKS) {
            int x = left + (int) (plotW * (Math.log10(1 / (1 - p / 100)) - xMin) / (xMax - xMin));
            g.setColor(new Color(0xe0e0e0));
            g.drawLine(x, top, x, top + plotH);
            g.setColor(Color.DARK_GRAY);
            String label = (p == Math.rint(p) ? String.format("%.0f", p) : String.valueOf(p)) + "%";
            g.drawString(label, x - g.getFontMetrics().stringWidth(label) / 2, top + plotH + 18);
        }
        g.drawString("percentile", left + plotW / 2 - 30, h - 18);
        g.setColor(Color.BLACK);
        g.drawRect(left, top, plotW, plotH);
        int legendY = top + 18;
        int s = 0;
        for (var e : series.entrySet()) {
            Color c = SERIES[s++ % SERIES.length];
            g.setColor(c);
            g.setStroke(new BasicStroke(2f));
            int prevX = -1;
            int prevY = -1;
            for (int i = 0; i <= 400; i++) {
                double lx = xMin + (xMax - xMin) * i / 400;
                double pct = 100 * (1 - Math.pow(10, -lx));
                double ms = e.getValue().getValueAtPercentile(pct) / 1000.0;
                int x = left + (int) (plotW * (lx - xMin) / (xMax - xMin));
                int y = top + plotH - (int) Math.min(plotH, plotH * ms / yMax);
                if (prevX >= 0) {
                    g.drawLine(prevX, prevY, x, y);
                }
                prevX = x;
                prevY = y;
            }
            Histogram hist = e.getValue();
            String label = String.format(
                    "%s: p50 %.1f ms, p99 %.1f ms, max %.1f ms (%,d)",
                    e.getKey(),
                    hist.getValueAtPercentile(50) / 1000.0,
                    hist.getValueAtPercentile(99) / 1000.0,
                    hist.getMaxValue() / 1000.0,
                    hist.getTotalCount());
            g.drawLine(left + 12, legendY - 4, left + 32, legendY - 4);
            g.setColor(Color.BLACK);
            g.drawString(label, left + 38, legendY);
            legendY += 18;
        }
        g.dispose();
        return img;
    }

    /** 1, 2 or 5 times a power of ten, at or above {@code v}. */
    static double niceCeiling(double v) {
        double p = Math.pow(10, Math.floor(Math.log10(Math.max(v, 1e-3))));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * p >= v) {
                return m * p;
            }
        }
        return 10 * p;
    }
}
