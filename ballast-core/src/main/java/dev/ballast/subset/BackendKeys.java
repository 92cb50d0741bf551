package dev.ballast.subset;

import java.util.Comparator;

/**
 * The stable order in which every client lists a service's backends: natural order, so that
 * {@code task-2} comes before {@code task-10}. Keys are split into runs of ASCII digits and runs of
 * other characters; two digit runs compare by numeric value (any length), other runs by Unicode
 * code point; a full code-point comparison breaks the remaining ties ({@code 07} against {@code 7}).
 */
final class BackendKeys {
  static final Comparator<String> NATURAL_ORDER = BackendKeys::compare;

  private BackendKeys() {}

  static int compare(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      boolean da = isDigit(a.charAt(i));
      boolean db = isDigit(b.charAt(j));
      if (da && db) {
        int ei = runEnd(a, i);
        int ej = runEnd(b, j);
        int c = compareNumbers(a, i, ei, b, j, ej);
        if (c != 0) {
          return c;
        }
        i = ei;
        j = ej;
      } else {
        int ca = a.codePointAt(i);
        int cb = b.codePointAt(j);
        if (ca != cb) {
          return Integer.compare(ca, cb);
        }
        i += Character.charCount(ca);
        j += Character.charCount(cb);
      }
    }
    if (i < a.length() || j < b.length()) {
      return i < a.length() ? 1 : -1;
    }
    return compareCodePoints(a, b);
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static int runEnd(String s, int from) {
    int e = from;
    while (e < s.length() && isDigit(s.charAt(e))) {
      e++;
    }
    return e;
  }

  private static int compareNumbers(String a, int i, int ei, String b, int j, int ej) {
    while (i < ei - 1 && a.charAt(i) == '0') {
      i++;
    }
    while (j < ej - 1 && b.charAt(j) == '0') {
      j++;
    }
    int la = ei - i;
    int lb = ej - j;
    if (la != lb) {
      return Integer.compare(la, lb);
    }
    for (int k = 0; k < la; k++) {
      int c = Character.compare(a.charAt(i + k), b.charAt(j + k));
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  private static int compareCodePoints(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }
}
