package dev.ballast.taglets;

import com.sun.source.doctree.DocTree;
import com.sun.source.doctree.TextTree;
import com.sun.source.doctree.UnknownInlineTagTree;
import java.io.File;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.Elements;
import javax.tools.DocumentationTool;
import javax.tools.JavaFileManager;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import jdk.javadoc.doclet.Doclet;
import jdk.javadoc.doclet.DocletEnvironment;
import jdk.javadoc.doclet.Taglet;

/**
 * The inline tag {@code {@setting NAME}}: a setting's meaning, default, range and keys, written
 * into the API docs from its one declaration, a {@code dev.ballast.settings.Setting} constant.
 * The constant is read from the compiled class while javadoc runs, so the docs say exactly what
 * the declaration says, as the library itself words it in its messages, and nothing is retyped.
 *
 * <p>Where the tag may point:
 *
 * <ul>
 *   <li>{@code {@setting}} with nothing after it, in the comment of a {@code Setting} constant:
 *       that constant.
 *   <li>{@code {@setting NAME}}: the static field {@code NAME} of the class whose comment holds
 *       the tag, or of a class around it (a config record's builder reaches its record's
 *       constants).
 *   <li>{@code {@setting Type#NAME}}: the field of {@code Type}, a class of the same package or a
 *       fully qualified name.
 * </ul>
 *
 * <p>The classes are loaded from javadoc's class path (where the build puts the module's own
 * compiled classes and its dependencies) and from the tag's own path. A tag that names no
 * {@code Setting} stops javadoc with a message that names the tag and where it is.
 */
public final class SettingTaglet implements Taglet {

  private static final String SETTING_CLASS = "dev.ballast.settings.Setting";

  private DocletEnvironment environment;
  private ClassLoader loader;

  /** Javadoc makes one per run. */
  public SettingTaglet() {}

  @Override
  public Set<Location> getAllowedLocations() {
    return EnumSet.allOf(Location.class);
  }

  @Override
  public boolean isInlineTag() {
    return true;
  }

  @Override
  public String getName() {
    return "setting";
  }

  @Override
  public void init(DocletEnvironment env, Doclet doclet) {
    this.environment = env;
    this.loader = null;
  }

  @Override
  public String toString(List<? extends DocTree> tags, Element element) {
    StringBuilder out = new StringBuilder();
    for (DocTree tag : tags) {
      String reference = reference(tag);
      try {
        out.append(describe(setting(reference, element)));
      } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
        throw new IllegalArgumentException("{@setting " + reference + "} in the comment of " + where(element) + ": "
            + e, e);
      }
    }
    return out.toString();
  }

  private static String reference(DocTree tag) {
    StringBuilder text = new StringBuilder();
    if (tag instanceof UnknownInlineTagTree inline) {
      for (DocTree part : inline.getContent()) {
        text.append(part instanceof TextTree t ? t.getBody() : part.toString());
      }
    }
    return text.toString().trim();
  }

  /** The {@code Setting} object the reference names, read from its compiled class. */
  private Object setting(String reference, Element element) throws ReflectiveOperationException {
    TypeElement type;
    String field;
    if (reference.isEmpty()) {
      if (element.getKind() != ElementKind.FIELD) {
        throw new IllegalArgumentException("a tag with no name belongs in the comment of a Setting constant");
      }
      type = (TypeElement) element.getEnclosingElement();
      field = element.getSimpleName().toString();
    } else if (reference.contains("#")) {
      String typeName = reference.substring(0, reference.indexOf('#'));
      field = reference.substring(reference.indexOf('#') + 1);
      type = type(typeName, element);
    } else {
      field = reference;
      type = holder(field, element);
    }
    Class<?> holder = Class.forName(environment.getElementUtils().getBinaryName(type).toString(), true, loader());
    Field f = holder.getField(field);
    if (!Modifier.isStatic(f.getModifiers()) || !f.getType().getName().equals(SETTING_CLASS)) {
      throw new IllegalArgumentException(holder.getName() + "." + field + " is not a static " + SETTING_CLASS);
    }
    return f.get(null);
  }

  /** The innermost class around {@code element} (itself included) that declares a field {@code field}. */
  private static TypeElement holder(String field, Element element) {
    for (Element at = element; at != null; at = at.getEnclosingElement()) {
      if (at instanceof TypeElement type) {
        for (Element member : type.getEnclosedElements()) {
          if (member.getKind() == ElementKind.FIELD && member.getSimpleName().contentEquals(field)) {
            return type;
          }
        }
      }
    }
    throw new IllegalArgumentException("no field " + field + " in " + where(element) + " or a class around it");
  }

  private TypeElement type(String name, Element element) {
    Elements elements = environment.getElementUtils();
    PackageElement pkg = elements.getPackageOf(element);
    TypeElement type = pkg.isUnnamed() ? null : elements.getTypeElement(pkg.getQualifiedName() + "." + name);
    if (type == null) {
      type = elements.getTypeElement(name);
    }
    if (type == null) {
      throw new IllegalArgumentException("no class " + name + " in " + pkg + " or by that full name");
    }
    return type;
  }

  private ClassLoader loader() {
    if (loader == null) {
      // One loader over both paths, so that a module's classes (on the tag's path) and its
      // dependencies (on the class path) see each other.
      List<URL> urls = new ArrayList<>();
      JavaFileManager files = environment.getJavaFileManager();
      if (files instanceof StandardJavaFileManager standard) {
        for (JavaFileManager.Location location : List.of(DocumentationTool.Location.TAGLET_PATH, StandardLocation.CLASS_PATH)) {
          Iterable<? extends File> path = standard.getLocation(location);
          if (path == null) {
            continue;
          }
          for (File entry : path) {
            try {
              urls.add(entry.toURI().toURL());
            } catch (MalformedURLException e) {
              throw new IllegalArgumentException("path entry " + entry + ": " + e.getMessage(), e);
            }
          }
        }
      }
      loader = new URLClassLoader("settings", urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
    }
    return loader;
  }

  /** The setting in HTML: its meaning, then its default, its range and its keys. */
  private static String describe(Object setting) throws ReflectiveOperationException {
    String name = (String) call(setting, "name");
    String meaning = (String) call(setting, "meaning");
    String expected = (String) call(setting, "expected");
    boolean required = (Boolean) call(setting, "required");
    boolean derived = call(setting, "defaultBasis") != null;
    String defaultText = (String) call(setting, "defaultText");
    Method kebab = setting.getClass().getMethod("kebab", String.class);
    String hocon = (String) kebab.invoke(null, name);

    StringBuilder out = new StringBuilder();
    out.append(escape(sentence(meaning)));
    if (required) {
      out.append(" Required: it has no default.");
    } else if (derived) {
      out.append(" Default: ").append(escape(defaultText)).append('.');
    } else {
      out.append(" Default: <code>").append(escape(defaultText)).append("</code>.");
    }
    out.append(" Expected: ").append(escape(expected)).append('.');
    out.append(" Key <code>").append(escape(name)).append("</code>");
    if (!hocon.equals(name)) {
      out.append(" (<code>").append(escape(hocon)).append("</code> in HOCON scenarios)");
    }
    out.append('.');
    return out.toString();
  }

  private static Object call(Object target, String method) throws ReflectiveOperationException {
    return target.getClass().getMethod(method).invoke(target);
  }

  /** A meaning as the declaration words it (lower case, no full stop) as a sentence. */
  private static String sentence(String meaning) {
    String text = meaning.strip();
    if (text.isEmpty()) {
      return text;
    }
    text = text.substring(0, 1).toUpperCase(Locale.ROOT) + text.substring(1);
    return text.endsWith(".") ? text : text + ".";
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  private static String where(Element element) {
    Element type = element;
    while (type != null && !(type instanceof TypeElement)) {
      type = type.getEnclosingElement();
    }
    return type == null || type == element ? String.valueOf(element) : type + "." + element;
  }
}
