package dev.ballast.cli;

import dev.ballast.subset.SubsetReport;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Renders subset reports as JSON: one object, or an array of objects with {@code --compare}. */
final class JsonReport {
  private JsonReport() {}

  static String render(
      List<SubsetReport> reports,
      List<double[]> averages,
      int seeds,
      long salt,
      boolean assignments,
      boolean array) {
    StringBuilder sb = new StringBuilder();
    if (array) {
      sb.append('[');
    }
    for (int i = 0; i < reports.size(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      object(sb, reports.get(i), averages.get(i), seeds, salt, assignments);
    }
    if (array) {
      sb.append(']');
    }
    return sb.toString();
  }

  private static void object(
      StringBuilder sb, SubsetReport r, double[] average, int seeds, long salt, boolean assignments) {
    sb.append('{');
    field(sb, "algorithm", quote(r.algorithm())).append(',');
    field(sb, "clients", r.clients()).append(',');
    field(sb, "backends", r.backends()).append(',');
    field(sb, "subsetSize", r.subsetSize()).append(',');
    field(sb, "salt", salt).append(',');
    SubsetReport.Connections c = r.connections();
    sb.append("\"connections\":{");
    field(sb, "min", c.min()).append(',');
    field(sb, "mean", number(c.mean())).append(',');
    field(sb, "max", c.max()).append(',');
    field(sb, "maxMinusMin", c.maxMinusMin()).append(',');
    field(sb, "minOverMean", number(c.minOverMean())).append(',');
    field(sb, "maxOverMean", number(c.maxOverMean())).append(',');
    field(sb, "idleBackends", c.idleBackends()).append(',');
    sb.append("\"histogram\":[");
    boolean first = true;
    for (Map.Entry<Integer, Integer> e : c.histogram().entrySet()) {
      if (!first) {
        sb.append(',');
      }
      first = false;
      sb.append("{\"connections\":").append(e.getKey()).append(",\"backends\":").append(e.getValue()).append('}');
    }
    sb.append("]");
    if (average != null) {
      sb.append(",\"averagedOverSalts\":{");
      field(sb, "salts", seeds).append(',');
      field(sb, "minOverMean", number(average[0])).append(',');
      field(sb, "maxOverMean", number(average[1]));
      sb.append('}');
    }
    sb.append("},");
    SubsetReport.Churn ch = r.churn();
    sb.append("\"churn\":{");
    field(sb, "backendRemoved", number(ch.backendRemoved())).append(',');
    field(sb, "backendAdded", number(ch.backendAdded())).append(',');
    field(sb, "clientAdded", number(ch.clientAdded())).append(',');
    field(sb, "clientAddedRenumbered", number(ch.clientAddedRenumbered())).append(',');
    field(sb, "clientRemoved", number(ch.clientRemoved())).append(',');
    field(sb, "clientRemovedRenumbered", number(ch.clientRemovedRenumbered())).append(',');
    field(sb, "subsetSizeGrew", number(ch.subsetSizeGrew())).append(',');
    field(sb, "subsetSizeShrank", number(ch.subsetSizeShrank()));
    sb.append("},");
    SubsetReport.Diversity d = r.diversity();
    sb.append("\"diversity\":{");
    field(sb, "identicalSubsetClients", d.identicalSubsetClients()).append(',');
    field(sb, "subsetLossMaxOverMean", number(d.subsetLossMaxOverMean())).append(',');
    field(sb, "subsetLossClientsEvaluated", d.subsetLossClientsEvaluated()).append(',');
    field(sb, "restartWorstLossFraction", number(d.restartWorstLossFraction()));
    sb.append('}');
    if (assignments) {
      sb.append(",\"assignments\":[");
      int[][] a = r.assignments();
      for (int i = 0; i < a.length; i++) {
        if (i > 0) {
          sb.append(',');
        }
        sb.append('[');
        for (int j = 0; j < a[i].length; j++) {
          if (j > 0) {
            sb.append(',');
          }
          sb.append(a[i][j]);
        }
        sb.append(']');
      }
      sb.append(']');
    }
    sb.append('}');
  }

  private static StringBuilder field(StringBuilder sb, String name, Object value) {
    return sb.append(quote(name)).append(':').append(value);
  }

  /** JSON has no NaN: a figure that does not apply is null. */
  static String number(double value) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      return "null";
    }
    return String.format(Locale.ROOT, "%.6f", value);
  }

  static String quote(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      switch (ch) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        default -> {
          if (ch < 0x20) {
            sb.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
          } else {
            sb.append(ch);
          }
        }
      }
    }
    return sb.append('"').toString();
  }
}
