package dev.testgen.executor;

import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Renders results as JSON in the shapes of outcome.rs: typed literals for
 * primitives, strings, enums and null; for other objects a summary of their
 * public no-argument getters, to a bounded depth. Runs on the plan's thread,
 * within its time limit, since getters are code under test. Everything is
 * bounded (depth, getters, elements, string length, frames, causes).
 */
final class Render {
    private static final int MAX_PROPERTIES = 32;
    private static final int MAX_ELEMENTS = 16;
    private static final int MAX_TOP_STRING = 1 << 16;
    private static final int MAX_NESTED_STRING = 1 << 10;
    private static final int MAX_FRAMES = 10;
    private static final int MAX_CAUSES = 3;

    private static final Method[] NO_GETTERS = new Method[0];
    /**
     * JDK objects that code writes text or bytes into, and the method that
     * says what they hold: their state, though it is no getter, and their
     * only property.
     */
    private static final Map<Class<?>, String> CONTENT = Map.of(
            StringBuilder.class, "toString",
            StringBuffer.class, "toString",
            java.io.StringWriter.class, "toString",
            java.io.CharArrayWriter.class, "toString",
            java.io.ByteArrayOutputStream.class, "toByteArray");

    private static final Comparator<Method> BY_NAME = new Comparator<Method>() {
        @Override
        public int compare(Method a, Method b) {
            return a.getName().compareTo(b.getName());
        }
    };

    private final int maxDepth;
    /** Getters per class, for as long as the class loader (and so this Render) lives. */
    private final Map<Class<?>, Method[]> getters = new HashMap<>();

    Render(int maxDepth) {
        this.maxDepth = maxDepth;
    }

    /**
     * Renders {@code value} whose static type is {@code type} (a primitive
     * type means the value is a box of it).
     */
    void value(Json.Writer json, Object value, Class<?> type, int depth) {
        if (type.isPrimitive()) {
            primitive(json, value);
            return;
        }
        if (value == null) {
            json.beginObject().field("kind", "null").endObject();
        } else if (value instanceof String) {
            string(json, (String) value, depth == 0 ? MAX_TOP_STRING : MAX_NESTED_STRING);
        } else if (isBox(value)) {
            json.beginObject().field("kind", "boxed").name("value");
            primitive(json, value);
            json.endObject();
        } else if (value instanceof Enum) {
            Enum<?> constant = (Enum<?>) value;
            json.beginObject().field("kind", "enum").field("class", constant.getDeclaringClass().getName())
                    .field("name", constant.name()).endObject();
        } else if (value instanceof Class && isNameable((Class<?>) value)) {
            json.beginObject().field("kind", "class").field("name", ((Class<?>) value).getName()).endObject();
        } else if (value.getClass().isArray()) {
            array(json, value, depth);
        } else {
            object(json, value, depth);
        }
    }

    /**
     * Whether a test in any package can write {@code cls.class}: a primitive,
     * an array of such, or a public class all of whose enclosing classes are
     * public (not local, anonymous or hidden).
     */
    static boolean isNameable(Class<?> cls) {
        while (cls.isArray()) {
            cls = cls.getComponentType();
        }
        if (cls.isPrimitive()) {
            return true;
        }
        for (Class<?> c = cls; c != null; c = c.getDeclaringClass()) {
            if (!java.lang.reflect.Modifier.isPublic(c.getModifiers()) || c.isLocalClass()
                    || c.isAnonymousClass() || c.isSynthetic()) {
                return false;
            }
        }
        // A hidden class's name has a '/' in it.
        return cls.getName().indexOf('/') < 0 && isExported(cls);
    }

    private static boolean isBox(Object value) {
        Class<?> c = value.getClass();
        return c == Integer.class || c == Long.class || c == Boolean.class || c == Double.class
                || c == Float.class || c == Character.class || c == Byte.class || c == Short.class;
    }

    /** A primitive value from its box. */
    static void primitive(Json.Writer json, Object box) {
        json.beginObject();
        if (box instanceof Integer) {
            json.field("kind", "int").field("value", (Integer) box);
        } else if (box instanceof Long) {
            json.field("kind", "long").field("value", (Long) box);
        } else if (box instanceof Boolean) {
            json.field("kind", "boolean").field("value", (Boolean) box);
        } else if (box instanceof Double) {
            json.field("kind", "double").name("bits").unsigned(Double.doubleToRawLongBits((Double) box));
        } else if (box instanceof Float) {
            json.field("kind", "float").field("bits", Float.floatToRawIntBits((Float) box) & 0xFFFFFFFFL);
        } else if (box instanceof Character) {
            json.field("kind", "char").field("value", (Character) box);
        } else if (box instanceof Byte) {
            json.field("kind", "byte").field("value", (Byte) box);
        } else if (box instanceof Short) {
            json.field("kind", "short").field("value", (Short) box);
        } else {
            throw new IllegalArgumentException("not a primitive box: " + box);
        }
        json.endObject();
    }

    private static void string(Json.Writer json, String value, int limit) {
        json.beginObject().field("kind", "string");
        if (value.length() <= limit) {
            json.name("value").javaString(value);
        } else {
            // Do not cut a surrogate pair in two.
            int end = Character.isHighSurrogate(value.charAt(limit - 1)) ? limit - 1 : limit;
            json.name("value").javaString(value.substring(0, end)).field("full_length", value.length());
        }
        json.endObject();
    }

    private void array(Json.Writer json, Object array, int depth) {
        int length = Array.getLength(array);
        Class<?> component = array.getClass().getComponentType();
        json.beginObject().field("kind", "array").field("class", array.getClass().getName())
                .field("identity", System.identityHashCode(array)).field("length", length);
        if (depth < maxDepth) {
            json.name("elements").beginArray();
            for (int i = 0; i < Math.min(length, MAX_ELEMENTS); i++) {
                value(json, Array.get(array, i), component, depth + 1);
            }
            json.endArray();
        }
        json.endObject();
    }

    private void object(Json.Writer json, Object value, int depth) {
        Class<?> cls = value.getClass();
        json.beginObject().field("kind", "object").field("class", cls.getName())
                .field("identity", System.identityHashCode(value));
        if (depth < maxDepth && !isOpaque(cls)) {
            json.name("properties").beginArray();
            for (Method getter : getters(cls)) {
                property(json, value, getter, depth);
            }
            json.endArray();
        }
        json.endObject();
    }

    /** Reflection and runtime objects whose getters say nothing about the code under test. */
    private static boolean isOpaque(Class<?> cls) {
        String name = cls.getName();
        return cls == Class.class || Thread.class.isAssignableFrom(cls) || ClassLoader.class.isAssignableFrom(cls)
                || name.startsWith("java.lang.reflect.") || name.startsWith("java.lang.invoke.")
                || name.startsWith("dev.testgen.executor.");
    }

    private void property(Json.Writer json, Object target, Method getter, int depth) {
        json.beginObject().field("name", getter.getName()).name("outcome").beginObject();
        Object result;
        try {
            result = getter.invoke(target);
        } catch (InvocationTargetException e) {
            json.field("kind", "threw").name("exception");
            exception(json, rethrowFatal(e.getCause()));
            json.endObject().endObject();
            return;
        } catch (Throwable t) {
            json.field("kind", "threw").name("exception");
            exception(json, rethrowFatal(t));
            json.endObject().endObject();
            return;
        }
        json.field("kind", "value").name("value");
        value(json, result, getter.getReturnType(), depth + 1);
        json.endObject().endObject();
    }

    /** Running out of memory (and its kin) ends the plan even inside a getter. */
    private static Throwable rethrowFatal(Throwable t) {
        if (t instanceof VirtualMachineError && !(t instanceof StackOverflowError)) {
            throw (VirtualMachineError) t;
        }
        return t;
    }

    /**
     * Per class (binary name): getters declared there that may change the
     * object (the Rust side's analysis), never called to describe a value:
     * a later statement would see the object changed.
     */
    private static volatile Map<String, Set<String>> gettersWithEffects = Collections.emptyMap();

    static void avoidGetters(Map<String, Set<String>> byClass) {
        gettersWithEffects = byClass;
    }

    private static boolean mayChangeState(Method m) {
        Set<String> names = gettersWithEffects.get(m.getDeclaringClass().getName());
        return names != null && names.contains(m.getName());
    }

    /** Public, non-static, no-argument getX()/isX() methods (and size() of collections), by name. */
    private Method[] getters(Class<?> cls) {
        Method[] cached = getters.get(cls);
        if (cached != null) {
            return cached;
        }
        Map<String, Method> byName = new HashMap<>();
        for (Method m : cls.getMethods()) {
            if (isGetter(m, cls) && !mayChangeState(m) && !byName.containsKey(m.getName())) {
                Method usable = accessible(m, cls);
                if (usable != null) {
                    byName.put(m.getName(), usable);
                }
            }
        }
        String content = CONTENT.get(cls);
        if (content != null) {
            // What it holds says all; `isEmpty` or `capacity` add nothing.
            byName.clear();
            try {
                byName.put(content, cls.getMethod(content));
            } catch (NoSuchMethodException e) {
                throw new AssertionError("the JDK's " + cls.getName() + " has " + content, e);
            }
        }
        List<Method> sorted = new ArrayList<>(byName.values());
        sorted.sort(BY_NAME);
        Method[] result = sorted.size() > MAX_PROPERTIES
                ? sorted.subList(0, MAX_PROPERTIES).toArray(NO_GETTERS)
                : sorted.toArray(NO_GETTERS);
        getters.put(cls, result);
        return result;
    }

    private static boolean isGetter(Method m, Class<?> cls) {
        if (Modifier.isStatic(m.getModifiers()) || m.getParameterCount() != 0 || m.isBridge()
                || m.isSynthetic() || m.getDeclaringClass() == Object.class) {
            return false;
        }
        Class<?> type = m.getReturnType();
        String name = m.getName();
        if (type == void.class) {
            return false;
        }
        // Throwable's own stack trace, suppressed list and localized message
        // describe where the object was made (a test and the executor differ
        // in stack depth), not the code under test.
        if (m.getDeclaringClass() == Throwable.class && !name.equals("getMessage")
                && !name.equals("getCause")) {
            return false;
        }
        if (name.equals("size")) {
            return Collection.class.isAssignableFrom(cls) || Map.class.isAssignableFrom(cls);
        }
        if (name.startsWith("get") && name.length() > 3 && !Character.isLowerCase(name.charAt(3))) {
            return true;
        }
        return name.startsWith("is") && name.length() > 2 && !Character.isLowerCase(name.charAt(2))
                && (type == boolean.class || type == Boolean.class);
    }

    /**
     * A version of {@code m} that reflection may call: itself when its class
     * is public or can be opened (the project's classes), else the same
     * method as declared by a public supertype (a JDK-internal class's
     * methods through its public interface).
     */
    private static Method accessible(Method m, Class<?> cls) {
        if (Modifier.isPublic(m.getDeclaringClass().getModifiers()) && isExported(m.getDeclaringClass())) {
            return m;
        }
        if (m.trySetAccessible()) {
            return m;
        }
        List<Class<?>> supertypes = new ArrayList<>();
        collectSupertypes(cls, supertypes, java.util.Collections.newSetFromMap(new IdentityHashMap<>()));
        for (Class<?> type : supertypes) {
            if (!Modifier.isPublic(type.getModifiers()) || !isExported(type)) {
                continue;
            }
            try {
                return type.getMethod(m.getName());
            } catch (NoSuchMethodException e) {
                // Not declared here; try the next supertype.
            }
        }
        return null;
    }

    private static boolean isExported(Class<?> cls) {
        Package pkg = cls.getPackage();
        return pkg == null || cls.getModule().isExported(pkg.getName());
    }

    private static void collectSupertypes(Class<?> cls, List<Class<?>> out, Set<Class<?>> seen) {
        if (cls == null || !seen.add(cls)) {
            return;
        }
        out.add(cls);
        collectSupertypes(cls.getSuperclass(), out, seen);
        for (Class<?> i : cls.getInterfaces()) {
            collectSupertypes(i, out, seen);
        }
    }

    // Exceptions.

    /** {"class","message","frames":[..],"cause":{..}} with at most MAX_CAUSES causes. */
    static void exception(Json.Writer json, Throwable t) {
        Set<Throwable> seen = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        exception(json, t, seen, 0);
    }

    private static void exception(Json.Writer json, Throwable t, Set<Throwable> seen, int causes) {
        seen.add(t);
        json.beginObject().field("class", t.getClass().getName());
        String message = message(t);
        if (message != null) {
            json.field("message", message);
        }
        json.name("frames").beginArray();
        for (StackTraceElement frame : frames(stackTrace(t))) {
            json.beginObject().field("class", frame.getClassName()).field("method", frame.getMethodName());
            if (frame.getFileName() != null) {
                json.field("file", frame.getFileName());
            }
            if (frame.getLineNumber() >= 0) {
                json.field("line", frame.getLineNumber());
            }
            json.endObject();
        }
        json.endArray();
        Throwable cause = cause(t);
        if (cause != null && causes < MAX_CAUSES && !seen.contains(cause)) {
            json.name("cause");
            exception(json, cause, seen, causes + 1);
        }
        json.endObject();
    }

    // getMessage(), getStackTrace() and getCause() may be overridden by the
    // code under test, and fail.

    private static String message(Throwable t) {
        try {
            return t.getMessage();
        } catch (Throwable failure) {
            rethrowFatal(failure);
            return "<getMessage() threw " + failure.getClass().getName() + ">";
        }
    }

    private static StackTraceElement[] stackTrace(Throwable t) {
        try {
            StackTraceElement[] trace = t.getStackTrace();
            return trace == null ? new StackTraceElement[0] : trace;
        } catch (Throwable failure) {
            rethrowFatal(failure);
            return new StackTraceElement[0];
        }
    }

    private static Throwable cause(Throwable t) {
        try {
            return t.getCause();
        } catch (Throwable failure) {
            rethrowFatal(failure);
            return null;
        }
    }

    /**
     * The top frames of the code under test: the executor's own frames on
     * top (the exit interception) and everything from the reflective call
     * down are left out.
     */
    private static List<StackTraceElement> frames(StackTraceElement[] trace) {
        int start = 0;
        while (start < trace.length && trace[start] != null && isExecutorFrame(trace[start])) {
            start++;
        }
        List<StackTraceElement> frames = new ArrayList<>();
        for (int i = start; i < trace.length && frames.size() < MAX_FRAMES; i++) {
            if (trace[i] == null || isBoundary(trace[i])) {
                break;
            }
            frames.add(trace[i]);
        }
        return frames;
    }

    private static boolean isExecutorFrame(StackTraceElement frame) {
        String cls = frame.getClassName();
        return cls.startsWith("dev.testgen.executor.")
                // The SecurityManager path of System.exit.
                || (cls.equals("java.lang.Runtime") && (frame.getMethodName().equals("exit")
                        || frame.getMethodName().equals("halt")))
                || (cls.equals("java.lang.System") && frame.getMethodName().equals("exit"));
    }

    private static boolean isBoundary(StackTraceElement frame) {
        String cls = frame.getClassName();
        return cls.startsWith("dev.testgen.executor.") || cls.startsWith("jdk.internal.reflect.")
                || (cls.equals("java.lang.reflect.Method") && frame.getMethodName().equals("invoke"))
                || (cls.equals("java.lang.reflect.Constructor") && frame.getMethodName().startsWith("newInstance"));
    }
}
