package dev.ballast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@code ballast subset --format json}, written with Jackson, against the output of the
 * StringBuilder writer it replaced (captured from it, character for character), and read back by
 * Jackson's parser as well-formed JSON.
 */
final class JsonReportTest {
  /** One algorithm with its assignments. */
  private static final String ASSIGNMENTS = "{\"algorithm\":\"deterministic\",\"clients\":4,\"backends\":12,\"subsetSize\":3,\"salt\":0,\"connections\":{\"min\":"
        + "1,\"mean\":1.000000,\"max\":1,\"maxMinusMin\":0,\"minOverMean\":1.000000,\"maxOverMean\":1.000000,\"idleBackend"
        + "s\":0,\"histogram\":[{\"connections\":1,\"backends\":12}]},\"churn\":{\"backendRemoved\":0.666667,\"backendAdded"
        + "\":0.916667,\"clientAdded\":0.111111,\"clientAddedRenumbered\":0.481481,\"clientRemoved\":0.142857,\"clientR"
        + "emovedRenumbered\":0.428571,\"subsetSizeGrew\":0.428571,\"subsetSizeShrank\":0.700000},\"diversity\":{\"iden"
        + "ticalSubsetClients\":0,\"subsetLossMaxOverMean\":1.000000,\"subsetLossClientsEvaluated\":4,\"restartWorstL"
        + "ossFraction\":0.666667},\"assignments\":[[5,11,8],[2,0,4],[10,9,7],[1,3,6]]}";
  /** Figures that do not apply are null. */
  private static final String NULLS = "{\"algorithm\":\"random\",\"clients\":1,\"backends\":3,\"subsetSize\":3,\"salt\":0,\"connections\":{\"min\":1,\"mean\""
        + ":1.000000,\"max\":1,\"maxMinusMin\":0,\"minOverMean\":1.000000,\"maxOverMean\":1.000000,\"idleBackends\":0,\"hi"
        + "stogram\":[{\"connections\":1,\"backends\":3}]},\"churn\":{\"backendRemoved\":null,\"backendAdded\":0.333333,\"c"
        + "lientAdded\":0.333333,\"clientAddedRenumbered\":0.333333,\"clientRemoved\":null,\"clientRemovedRenumbered\""
        + ":null,\"subsetSizeGrew\":null,\"subsetSizeShrank\":0.200000},\"diversity\":{\"identicalSubsetClients\":0,\"su"
        + "bsetLossMaxOverMean\":null,\"subsetLossClientsEvaluated\":0,\"restartWorstLossFraction\":0.333333}}";

  private static String json(String... args) {
    SubsetCommandTest.Result result = SubsetCommandTest.run(args);
    assertThat(result.exitCode()).as(result.err()).isZero();
    return result.out().trim();
  }

  @Test
  void oneAlgorithmWithItsAssignmentsIsWrittenAsBefore() {
    assertThat(json("subset", "--algorithm", "deterministic", "--format", "json", "--assignments",
        "--clients", "4", "--backends", "12", "--subset-size", "3")).isEqualTo(ASSIGNMENTS);
  }

  @Test
  void figuresThatDoNotApplyAreNullAsBefore() {
    assertThat(json("subset", "--algorithm", "random", "--format", "json", "--clients", "1", "--backends", "3",
        "--subset-size", "3")).isEqualTo(NULLS);
  }

  @Test
  void aComparisonOverSeveralSaltsIsWrittenAsBefore() throws Exception {
    String expected;
    try (InputStream golden = JsonReportTest.class.getResourceAsStream("subset-compare.json")) {
      expected = new String(golden.readAllBytes(), StandardCharsets.UTF_8).trim();
    }
    String json = json("subset", "--compare", "--format", "json", "--clients", "20", "--backends", "30",
        "--subset-size", "5", "--seeds", "3");
    assertThat(json).isEqualTo(expected);

    int objects = 0;
    try (JsonParser parser = new JsonFactory().createParser(json)) {
      assertThat(parser.nextToken()).isEqualTo(JsonToken.START_ARRAY);
      for (JsonToken token = parser.nextToken(); token != JsonToken.END_ARRAY; token = parser.nextToken()) {
        assertThat(token).isEqualTo(JsonToken.START_OBJECT);
        parser.skipChildren();
        objects++;
      }
      assertThat(parser.nextToken()).as("nothing after the array").isNull();
    }
    assertThat(objects).as("one object per algorithm").isEqualTo(4);
  }
}
