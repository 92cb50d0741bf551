package dev.ballast.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.ballast.subset.SubsetReport;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders subset reports as JSON with Jackson's streaming generator: one object, or an array of
 * objects with {@code --compare}. Fractions are written with six decimals; a figure that does not
 * apply (NaN) is null.
 */
final class JsonReport {
  private static final JsonFactory JSON = new JsonFactory();

  private JsonReport() {}

  static String render(
      List<SubsetReport> reports,
      List<double[]> averages,
      int seeds,
      long salt,
      boolean assignments,
      boolean array) {
    StringWriter text = new StringWriter();
    try (JsonGenerator json = JSON.createGenerator(text)) {
      if (array) {
        json.writeStartArray();
      }
      for (int i = 0; i < reports.size(); i++) {
        object(json, reports.get(i), averages.get(i), seeds, salt, assignments);
      }
      if (array) {
        json.writeEndArray();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("writing JSON into a string", e);
    }
    return text.toString();
  }

  private static void object(
      JsonGenerator json, SubsetReport r, double[] average, int seeds, long salt, boolean assignments) throws IOException {
    json.writeStartObject();
    json.writeStringField("algorithm", r.algorithm());
    json.writeNumberField("clients", r.clients());
    json.writeNumberField("backends", r.backends());
    json.writeNumberField("subsetSize", r.subsetSize());
    json.writeNumberField("salt", salt);

    SubsetReport.Connections c = r.connections();
    json.writeObjectFieldStart("connections");
    json.writeNumberField("min", c.min());
    fraction(json, "mean", c.mean());
    json.writeNumberField("max", c.max());
    json.writeNumberField("maxMinusMin", c.maxMinusMin());
    fraction(json, "minOverMean", c.minOverMean());
    fraction(json, "maxOverMean", c.maxOverMean());
    json.writeNumberField("idleBackends", c.idleBackends());
    json.writeArrayFieldStart("histogram");
    for (Map.Entry<Integer, Integer> e : c.histogram().entrySet()) {
      json.writeStartObject();
      json.writeNumberField("connections", e.getKey());
      json.writeNumberField("backends", e.getValue());
      json.writeEndObject();
    }
    json.writeEndArray();
    if (average != null) {
      json.writeObjectFieldStart("averagedOverSalts");
      json.writeNumberField("salts", seeds);
      fraction(json, "minOverMean", average[0]);
      fraction(json, "maxOverMean", average[1]);
      json.writeEndObject();
    }
    json.writeEndObject();

    SubsetReport.Churn ch = r.churn();
    json.writeObjectFieldStart("churn");
    fraction(json, "backendRemoved", ch.backendRemoved());
    fraction(json, "backendAdded", ch.backendAdded());
    fraction(json, "clientAdded", ch.clientAdded());
    fraction(json, "clientAddedRenumbered", ch.clientAddedRenumbered());
    fraction(json, "clientRemoved", ch.clientRemoved());
    fraction(json, "clientRemovedRenumbered", ch.clientRemovedRenumbered());
    fraction(json, "subsetSizeGrew", ch.subsetSizeGrew());
    fraction(json, "subsetSizeShrank", ch.subsetSizeShrank());
    json.writeEndObject();

    SubsetReport.Diversity d = r.diversity();
    json.writeObjectFieldStart("diversity");
    json.writeNumberField("identicalSubsetClients", d.identicalSubsetClients());
    fraction(json, "subsetLossMaxOverMean", d.subsetLossMaxOverMean());
    json.writeNumberField("subsetLossClientsEvaluated", d.subsetLossClientsEvaluated());
    fraction(json, "restartWorstLossFraction", d.restartWorstLossFraction());
    json.writeEndObject();

    if (assignments) {
      json.writeArrayFieldStart("assignments");
      for (int[] backends : r.assignments()) {
        json.writeArray(backends, 0, backends.length);
      }
      json.writeEndArray();
    }
    json.writeEndObject();
  }

  /** Six decimals, as the text report prints them; JSON has no NaN, so a figure that does not apply is null. */
  private static void fraction(JsonGenerator json, String name, double value) throws IOException {
    json.writeFieldName(name);
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      json.writeNull();
    } else {
      json.writeNumber(String.format(Locale.ROOT, "%.6f", value));
    }
  }
}
