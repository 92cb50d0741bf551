package dev.ballast.releasechecks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

/** The project's files as the checks read them: the checkout's root, its poms as DOM trees. */
final class Poms {
  private Poms() {}

  /** The checkout's root, which the build passes as {@code ballast.root}. */
  static Path root() {
    String root = System.getProperty("ballast.root");
    if (root == null) {
      throw new IllegalStateException("ballast.root: missing (expected: the checkout's root, set by the module's surefire configuration)");
    }
    return Path.of(root).toAbsolutePath().normalize();
  }

  /** The pom at {@code path}, parsed. */
  static Element read(Path path) {
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      Document document = factory.newDocumentBuilder().parse(path.toFile());
      return document.getDocumentElement();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (ParserConfigurationException | SAXException e) {
      throw new IllegalStateException(path + ": " + e.getMessage(), e);
    }
  }

  /** The text of a file of the checkout. */
  static String text(Path path) {
    try {
      return Files.readString(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The direct children of {@code parent} named {@code name}. */
  static List<Element> children(Element parent, String name) {
    List<Element> children = new ArrayList<>();
    for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
      if (node instanceof Element element && element.getTagName().equals(name)) {
        children.add(element);
      }
    }
    return children;
  }

  /** The one direct child of {@code parent} named {@code name}, if there is one. */
  static Optional<Element> child(Element parent, String name) {
    List<Element> children = children(parent, name);
    return children.isEmpty() ? Optional.empty() : Optional.of(children.get(0));
  }

  /** The element at {@code path} below {@code parent} (each step a direct child), if there is one. */
  static Optional<Element> at(Element parent, String... path) {
    Optional<Element> element = Optional.of(parent);
    for (String step : path) {
      element = element.flatMap(e -> child(e, step));
    }
    return element;
  }

  /** The trimmed text at {@code path} below {@code parent}, or the empty string. */
  static String textAt(Element parent, String... path) {
    return at(parent, path).map(e -> e.getTextContent().trim()).orElse("");
  }
}
