package dev.testgen.executor;

import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs the statements of plans on one class loader, on the plan's thread.
 * Members are resolved exactly (class, name, descriptor) and cached for the
 * loader's life; arguments are converted only as Java's method invocation
 * conversion allows (widening, no boxing across types).
 */
final class PlanRunner {
    /** The statement cannot run as written: a mistake in the plan. */
    static final class Invalid extends Exception {
        private static final long serialVersionUID = 1L;

        Invalid(String reason) {
            super(reason, null, false, false);
        }
    }

    /** The code under test (or the JVM on its behalf) threw. */
    static final class Thrown extends Exception {
        private static final long serialVersionUID = 1L;
        final Throwable thrown;

        Thrown(Throwable thrown) {
            super(null, null, false, false);
            this.thrown = thrown;
        }
    }

    /** One plan's work: the statements in, how it ended out (written before {@code done}). */
    static final class Task {
        final PlanContext context;
        final PlanRunner runner;
        final List<?> statements;
        final java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        /** completed, exception, invalid or out_of_memory. */
        volatile String end = "completed";
        volatile int endStatement = -1;

        Task(PlanContext context, PlanRunner runner, List<?> statements) {
            this.context = context;
            this.runner = runner;
            this.statements = statements;
        }

        void end(String how, int statement) {
            end = how;
            endStatement = statement;
        }
    }

    private final ClassLoader loader;
    private final Render render;
    private final Map<String, Class<?>> classes = new HashMap<>();
    private final Map<String, Executable> executables = new HashMap<>();
    private final Map<String, Field> fields = new HashMap<>();

    PlanRunner(ClassLoader loader, int summaryDepth) {
        this.loader = loader;
        this.render = new Render(summaryDepth);
    }

    ClassLoader loader() {
        return loader;
    }

    /** Runs {@code task} on the calling thread (the plan's thread). */
    void run(Task task) {
        PlanContext context = task.context;
        List<?> statements = task.statements;
        Object[] values = new Object[statements.size()];
        boolean[] hasValue = new boolean[statements.size()];
        int index = 0;
        try {
            for (; index < statements.size(); index++) {
                Probe.statement(index);
                if (!runOne(task, index, statements.get(index), values, hasValue)) {
                    return;
                }
            }
        } catch (OutOfMemoryError e) {
            // The plan's objects are unreachable from here on, which frees the memory to report this.
            task.end("out_of_memory", index);
            context.outcome(threw(e));
        } catch (Throwable t) {
            // A failure of the executor itself: reported on the statement, so that it is seen.
            task.end("invalid", index);
            context.outcome(invalid("executor failure: " + t));
        }
    }

    /** Runs one statement and records its outcome; false if the plan ends here. */
    private boolean runOne(Task task, int index, Object statement, Object[] values, boolean[] hasValue) {
        PlanContext context = task.context;
        Object value;
        Class<?> type;
        try {
            if (!(statement instanceof Map)) {
                throw new Invalid("a statement must be an object");
            }
            Object[] result = execute((Map<?, ?>) statement, index, values, hasValue);
            value = result[0];
            type = (Class<?>) result[1];
        } catch (Invalid e) {
            task.end("invalid", index);
            context.outcome(invalid(e.getMessage()));
            return false;
        } catch (Thrown e) {
            Throwable thrown = e.thrown;
            if (thrown instanceof OutOfMemoryError) {
                throw (OutOfMemoryError) thrown;
            }
            task.end("exception", index);
            ExitRequested exit = exitIn(thrown);
            if (exit != null) {
                context.outcome(new Json.Writer().beginObject().field("kind", "exit_requested")
                        .field("status", exit.status()).endObject().out.toString());
            } else {
                Probe.setRecording(false); // getMessage() is code under test
                try {
                    context.outcome(threw(thrown));
                } finally {
                    Probe.setRecording(true);
                }
            }
            return false;
        }
        if (type == null) {
            context.outcome("{\"kind\":\"void\"}");
        } else {
            values[index] = value;
            hasValue[index] = true;
            // Getters are code under test run on the executor's behalf: not part of the trace.
            Probe.setRecording(false);
            try {
                Json.Writer json = new Json.Writer().beginObject().field("kind", "value").name("value");
                render.value(json, value, type, 0);
                context.outcome(json.endObject().out.toString());
            } finally {
                Probe.setRecording(true);
            }
        }
        return true;
    }

    private static String invalid(String reason) {
        return new Json.Writer().beginObject().field("kind", "invalid").field("reason", reason).endObject()
                .out.toString();
    }

    private static String threw(Throwable t) {
        Json.Writer json = new Json.Writer().beginObject().field("kind", "threw").name("exception");
        Render.exception(json, t);
        return json.endObject().out.toString();
    }

    /** The ExitRequested that {@code t} is or was caused by, if any. */
    private static ExitRequested exitIn(Throwable t) {
        Set<Throwable> seen = new HashSet<>();
        for (Throwable cause = t; cause != null && seen.add(cause); cause = cause.getCause()) {
            if (cause instanceof ExitRequested) {
                return (ExitRequested) cause;
            }
        }
        return null;
    }

    /** Returns {value, static type} with a null type for statements without a value. */
    private Object[] execute(Map<?, ?> statement, int index, Object[] values, boolean[] hasValue)
            throws Invalid, Thrown {
        String op = string(statement, "op");
        switch (op) {
            case "new": {
                Class<?> cls = classNamed(string(statement, "class"));
                Constructor<?> constructor = constructor(cls, string(statement, "descriptor"));
                Object[] args = arguments(statement, constructor.getParameterTypes(), index, values, hasValue);
                return new Object[] {construct(constructor, args), cls};
            }
            case "call_static":
            case "call": {
                boolean isStatic = op.equals("call_static");
                Class<?> cls = classNamed(string(statement, "class"));
                Method method = method(cls, string(statement, "name"), string(statement, "descriptor"), isStatic);
                Object receiver = null;
                if (!isStatic) {
                    receiver = value(statement.get("receiver"), index, values, hasValue);
                    checkReceiver(receiver, method);
                }
                Object[] args = arguments(statement, method.getParameterTypes(), index, values, hasValue);
                Object result = invoke(method, receiver, args);
                Class<?> type = method.getReturnType();
                return new Object[] {result, type == void.class ? null : type};
            }
            case "get_field": {
                Object receiverJson = statement.get("receiver");
                Field field = field(classNamed(string(statement, "class")), string(statement, "name"),
                        receiverJson == null);
                Object receiver = receiverJson == null ? null : value(receiverJson, index, values, hasValue);
                if (receiverJson != null) {
                    checkReceiver(receiver, field);
                }
                try {
                    return new Object[] {field.get(receiver), field.getType()};
                } catch (IllegalAccessException | IllegalArgumentException e) {
                    throw new Invalid("cannot read " + field + ": " + e.getMessage());
                } catch (Throwable t) {
                    throw new Thrown(t); // class initialisation failed
                }
            }
            case "put_field": {
                Object receiverJson = statement.get("receiver");
                Field field = field(classNamed(string(statement, "class")), string(statement, "name"),
                        receiverJson == null);
                if (Modifier.isFinal(field.getModifiers())) {
                    throw new Invalid(field + " is final");
                }
                Object receiver = receiverJson == null ? null : value(receiverJson, index, values, hasValue);
                if (receiverJson != null) {
                    checkReceiver(receiver, field);
                }
                Object value = convert(value(statement.get("value"), index, values, hasValue), field.getType(),
                        "the value of " + field.getName());
                try {
                    field.set(receiver, value);
                } catch (IllegalAccessException | IllegalArgumentException e) {
                    throw new Invalid("cannot write " + field + ": " + e.getMessage());
                } catch (Throwable t) {
                    throw new Thrown(t);
                }
                return new Object[] {null, null};
            }
            case "new_array": {
                Class<?> element = typeFromDescriptor(string(statement, "element"));
                if (element == void.class) {
                    throw new Invalid("no array of void");
                }
                int length = intField(statement, "length");
                try {
                    Object array = Array.newInstance(element, length);
                    return new Object[] {array, array.getClass()};
                } catch (NegativeArraySizeException | OutOfMemoryError e) {
                    throw new Thrown(e);
                } catch (IllegalArgumentException e) {
                    throw new Invalid("cannot create an array of " + element.getName() + ": " + e.getMessage());
                }
            }
            case "array_store": {
                Object array = value(statement.get("array"), index, values, hasValue);
                if (array == null || !array.getClass().isArray()) {
                    throw new Invalid("array_store needs an array, not " + describe(array));
                }
                int at = intField(statement, "index");
                Class<?> component = array.getClass().getComponentType();
                Object value = convert(value(statement.get("value"), index, values, hasValue), component,
                        "the stored value");
                try {
                    store(array, at, value);
                } catch (ArrayIndexOutOfBoundsException | ArrayStoreException e) {
                    throw new Thrown(e);
                }
                return new Object[] {null, null};
            }
            case "lambda": {
                Class<?> face = classNamed(string(statement, "interface"));
                if (!face.isInterface()) {
                    throw new Invalid(face.getName() + " is not an interface");
                }
                Method method = method(face, string(statement, "method"), string(statement, "descriptor"), false);
                Object resultJson = statement.get("result");
                Object result = null;
                if (method.getReturnType() != void.class) {
                    if (resultJson == null) {
                        throw new Invalid("a lambda for " + method.getName() + " needs a result");
                    }
                    result = convert(value(resultJson, index, values, hasValue), method.getReturnType(),
                            "the result of " + method.getName());
                }
                return new Object[] {lambda(face, method, result), face};
            }
            default:
                throw new Invalid("unknown statement op " + op);
        }
    }

    /**
     * What a test's lambda {@code (x, y) -> result} for {@code method} of
     * {@code face} is: an object whose {@code method} returns {@code result}
     * whatever its arguments; default methods run the interface's code,
     * and equality is identity, as for a lambda.
     */
    private Object lambda(Class<?> face, Method method, Object result) throws Invalid {
        java.lang.reflect.InvocationHandler handler = (proxy, called, args) -> {
            if (called.getName().equals(method.getName())
                    && java.util.Arrays.equals(called.getParameterTypes(), method.getParameterTypes())) {
                return result;
            }
            if (called.isDefault()) {
                return invokeDefault(proxy, called, args);
            }
            switch (called.getName()) {
                case "equals":
                    return proxy == args[0];
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "toString":
                    return face.getName() + "$$Lambda@" + Integer.toHexString(System.identityHashCode(proxy));
                default:
                    throw new AbstractMethodError(called.toString());
            }
        };
        try {
            return java.lang.reflect.Proxy.newProxyInstance(loader, new Class<?>[] {face}, handler);
        } catch (IllegalArgumentException e) {
            throw new Invalid("cannot implement " + face.getName() + ": " + e.getMessage());
        }
    }

    /**
     * Runs a default method's own code on a proxy: {@code
     * InvocationHandler.invokeDefault} from JDK 16 on (looked up, since the
     * executor is compiled for 11), else a special lookup, which works for
     * the program's interfaces.
     */
    private static Object invokeDefault(Object proxy, Method method, Object[] args) throws Throwable {
        Object[] arguments = args == null ? new Object[0] : args;
        Method invokeDefault;
        try {
            invokeDefault = java.lang.reflect.InvocationHandler.class.getMethod("invokeDefault", Object.class,
                    Method.class, Object[].class);
        } catch (NoSuchMethodException e) {
            Class<?> face = method.getDeclaringClass();
            return java.lang.invoke.MethodHandles.privateLookupIn(face, java.lang.invoke.MethodHandles.lookup())
                    .unreflectSpecial(method, face).bindTo(proxy).invokeWithArguments(arguments);
        }
        try {
            return invokeDefault.invoke(null, proxy, method, arguments);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    // Invocation.

    private static Object construct(Constructor<?> constructor, Object[] args) throws Invalid, Thrown {
        try {
            return constructor.newInstance(args);
        } catch (InvocationTargetException e) {
            throw new Thrown(e.getCause());
        } catch (InstantiationException e) {
            throw new Invalid(constructor.getDeclaringClass().getName() + " is abstract");
        } catch (IllegalAccessException | IllegalArgumentException e) {
            throw new Invalid("cannot call " + constructor + ": " + e.getMessage());
        } catch (Throwable t) {
            throw new Thrown(t); // class initialisation failed, or the JVM gave up
        }
    }

    private static Object invoke(Method method, Object receiver, Object[] args) throws Invalid, Thrown {
        try {
            return method.invoke(receiver, args);
        } catch (InvocationTargetException e) {
            throw new Thrown(e.getCause());
        } catch (IllegalAccessException | IllegalArgumentException e) {
            throw new Invalid("cannot call " + method + ": " + e.getMessage());
        } catch (Throwable t) {
            throw new Thrown(t);
        }
    }

    private static void checkReceiver(Object receiver, Member member) throws Invalid {
        if (receiver == null) {
            throw new Invalid("the receiver of " + member.getName() + " is null");
        }
        if (!member.getDeclaringClass().isInstance(receiver)) {
            throw new Invalid("the receiver of " + member.getName() + " is a " + receiver.getClass().getName()
                    + ", not a " + member.getDeclaringClass().getName());
        }
    }

    private static void store(Object array, int index, Object value) {
        Class<?> component = array.getClass().getComponentType();
        if (!component.isPrimitive()) {
            ((Object[]) array)[index] = value;
        } else if (component == int.class) {
            ((int[]) array)[index] = (Integer) value;
        } else if (component == long.class) {
            ((long[]) array)[index] = (Long) value;
        } else if (component == boolean.class) {
            ((boolean[]) array)[index] = (Boolean) value;
        } else if (component == double.class) {
            ((double[]) array)[index] = (Double) value;
        } else if (component == float.class) {
            ((float[]) array)[index] = (Float) value;
        } else if (component == char.class) {
            ((char[]) array)[index] = (Character) value;
        } else if (component == byte.class) {
            ((byte[]) array)[index] = (Byte) value;
        } else {
            ((short[]) array)[index] = (Short) value;
        }
    }

    // Resolution.

    private Class<?> classNamed(String name) throws Invalid {
        Class<?> cls = classes.get(name);
        if (cls != null) {
            return cls;
        }
        try {
            cls = Class.forName(name.replace('/', '.'), false, loader);
        } catch (ClassNotFoundException e) {
            throw new Invalid("class not found: " + name);
        } catch (LinkageError e) {
            throw new Invalid("cannot load " + name + ": " + e);
        }
        classes.put(name, cls);
        return cls;
    }

    private Class<?> typeFromDescriptor(String descriptor) throws Invalid {
        if (descriptor.length() == 1) {
            Class<?> primitive = primitive(descriptor.charAt(0));
            if (primitive != null) {
                return primitive;
            }
        } else if (descriptor.startsWith("L") && descriptor.endsWith(";")) {
            return classNamed(descriptor.substring(1, descriptor.length() - 1));
        } else if (descriptor.startsWith("[")) {
            return classNamed(descriptor);
        }
        throw new Invalid("not a type descriptor: " + descriptor);
    }

    private static Class<?> primitive(char code) {
        switch (code) {
            case 'Z': return boolean.class;
            case 'B': return byte.class;
            case 'C': return char.class;
            case 'S': return short.class;
            case 'I': return int.class;
            case 'J': return long.class;
            case 'F': return float.class;
            case 'D': return double.class;
            case 'V': return void.class;
            default: return null;
        }
    }

    private Constructor<?> constructor(Class<?> cls, String descriptor) throws Invalid {
        String key = cls.getName() + ".<init>" + descriptor;
        Executable cached = executables.get(key);
        if (cached != null) {
            return (Constructor<?>) cached;
        }
        for (Constructor<?> constructor : cls.getDeclaredConstructors()) {
            if (descriptor.equals(descriptor(constructor.getParameterTypes(), void.class))) {
                callable(constructor);
                executables.put(key, constructor);
                return constructor;
            }
        }
        throw new Invalid("no constructor " + descriptor + " in " + cls.getName());
    }

    /** The method {@code name descriptor} declared by {@code cls} or inherited from a supertype. */
    private Method method(Class<?> cls, String name, String descriptor, boolean isStatic) throws Invalid {
        String key = cls.getName() + '.' + name + descriptor;
        Method method = (Method) executables.get(key);
        if (method == null) {
            method = findMethod(cls, name, descriptor);
            if (method == null) {
                throw new Invalid("no method " + name + descriptor + " in " + cls.getName() + " or its supertypes");
            }
            callable(method);
            executables.put(key, method);
        }
        if (Modifier.isStatic(method.getModifiers()) != isStatic) {
            throw new Invalid(method + (isStatic ? " is not static" : " is static"));
        }
        return method;
    }

    private static Method findMethod(Class<?> cls, String name, String descriptor) {
        // Superclasses first, then interfaces breadth-first, as Java's method lookup does.
        for (Class<?> c = cls; c != null; c = c.getSuperclass()) {
            Method found = declared(c, name, descriptor);
            if (found != null) {
                return found;
            }
        }
        ArrayDeque<Class<?>> queue = new ArrayDeque<>();
        Set<Class<?>> seen = new HashSet<>();
        for (Class<?> c = cls; c != null; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                queue.add(i);
            }
        }
        while (!queue.isEmpty()) {
            Class<?> i = queue.poll();
            if (!seen.add(i)) {
                continue;
            }
            Method found = declared(i, name, descriptor);
            if (found != null) {
                return found;
            }
            for (Class<?> parent : i.getInterfaces()) {
                queue.add(parent);
            }
        }
        return null;
    }

    private static Method declared(Class<?> cls, String name, String descriptor) {
        for (Method m : cls.getDeclaredMethods()) {
            if (m.getName().equals(name) && descriptor.equals(descriptor(m.getParameterTypes(), m.getReturnType()))) {
                return m;
            }
        }
        return null;
    }

    /** The field {@code name} declared by {@code cls} or a supertype. */
    private Field field(Class<?> cls, String name, boolean isStatic) throws Invalid {
        String key = cls.getName() + '.' + name;
        Field field = fields.get(key);
        if (field == null) {
            field = findField(cls, name);
            if (field == null) {
                throw new Invalid("no field " + name + " in " + cls.getName() + " or its supertypes");
            }
            callable(field);
            fields.put(key, field);
        }
        if (Modifier.isStatic(field.getModifiers()) != isStatic) {
            throw new Invalid(field + (isStatic ? " is not static" : " is static"));
        }
        return field;
    }

    private static Field findField(Class<?> cls, String name) {
        for (Class<?> c = cls; c != null; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (f.getName().equals(name)) {
                    return f;
                }
            }
        }
        try {
            return cls.getField(name); // a constant of an interface
        } catch (NoSuchFieldException e) {
            return null;
        }
    }

    /**
     * Members a test in the same package could use are opened for reflection;
     * private ones are refused, since no generated test could call them.
     */
    private static void callable(java.lang.reflect.AccessibleObject member) throws Invalid {
        Member m = (Member) member;
        if (Modifier.isPrivate(m.getModifiers())) {
            throw new Invalid(m + " is private");
        }
        boolean open = Modifier.isPublic(m.getModifiers()) && Modifier.isPublic(m.getDeclaringClass().getModifiers());
        if (!open && !member.trySetAccessible()) {
            throw new Invalid(m + " is not accessible");
        }
    }

    static String descriptor(Class<?>[] parameters, Class<?> result) {
        StringBuilder sb = new StringBuilder().append('(');
        for (Class<?> p : parameters) {
            typeDescriptor(sb, p);
        }
        typeDescriptor(sb.append(')'), result);
        return sb.toString();
    }

    private static void typeDescriptor(StringBuilder sb, Class<?> type) {
        if (type.isPrimitive()) {
            sb.append(primitiveCode(type));
        } else if (type.isArray()) {
            sb.append(type.getName().replace('.', '/'));
        } else {
            sb.append('L').append(type.getName().replace('.', '/')).append(';');
        }
    }

    private static char primitiveCode(Class<?> type) {
        if (type == int.class) return 'I';
        if (type == long.class) return 'J';
        if (type == boolean.class) return 'Z';
        if (type == double.class) return 'D';
        if (type == float.class) return 'F';
        if (type == char.class) return 'C';
        if (type == byte.class) return 'B';
        if (type == short.class) return 'S';
        return 'V';
    }

    // Values.

    private Object[] arguments(Map<?, ?> statement, Class<?>[] parameters, int index, Object[] values,
            boolean[] hasValue) throws Invalid, Thrown {
        Object args = statement.get("args");
        List<?> list = args == null ? List.of() : asList(args, "args");
        if (list.size() != parameters.length) {
            throw new Invalid("expected " + parameters.length + " arguments, got " + list.size());
        }
        Object[] converted = new Object[parameters.length];
        for (int i = 0; i < parameters.length; i++) {
            converted[i] = convert(value(list.get(i), index, values, hasValue), parameters[i], "argument " + i);
        }
        return converted;
    }

    /** A plan value as a Java object (primitives boxed). */
    private Object value(Object json, int index, Object[] values, boolean[] hasValue) throws Invalid, Thrown {
        if (!(json instanceof Map)) {
            throw new Invalid("a value must be an object");
        }
        Map<?, ?> value = (Map<?, ?>) json;
        String kind = string(value, "kind");
        switch (kind) {
            case "null":
                return null;
            case "boolean": {
                Object b = value.get("value");
                if (!(b instanceof Boolean)) {
                    throw new Invalid("boolean value expected");
                }
                return b;
            }
            case "byte":
                return (byte) integer(value, "value", Byte.MIN_VALUE, Byte.MAX_VALUE);
            case "short":
                return (short) integer(value, "value", Short.MIN_VALUE, Short.MAX_VALUE);
            case "char":
                return (char) integer(value, "value", Character.MIN_VALUE, Character.MAX_VALUE);
            case "int":
                return (int) integer(value, "value", Integer.MIN_VALUE, Integer.MAX_VALUE);
            case "long":
                return integer(value, "value", Long.MIN_VALUE, Long.MAX_VALUE);
            case "float":
                return Float.intBitsToFloat((int) bits(value, 0xFFFFFFFFL));
            case "double":
                return Double.longBitsToDouble(bits(value, -1L));
            case "string":
                return javaString(value.get("value"));
            case "enum":
                return enumConstant(classNamed(string(value, "class")), string(value, "name"));
            case "class":
                return classNamed(string(value, "name"));
            case "ref": {
                long statement = integer(value, "statement", 0, Integer.MAX_VALUE);
                if (statement >= index || !hasValue[(int) statement]) {
                    throw new Invalid("statement " + statement + " has no value for statement " + index);
                }
                return values[(int) statement];
            }
            default:
                throw new Invalid("unknown value kind " + kind);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object enumConstant(Class<?> cls, String name) throws Invalid, Thrown {
        if (!cls.isEnum()) {
            throw new Invalid(cls.getName() + " is not an enum");
        }
        try {
            return Enum.valueOf((Class) cls, name);
        } catch (IllegalArgumentException e) {
            throw new Invalid("no constant " + name + " in " + cls.getName());
        } catch (Throwable t) {
            throw new Thrown(t); // the enum's initialisation failed
        }
    }

    private static String javaString(Object json) throws Invalid {
        if (json instanceof String) {
            return (String) json;
        }
        List<?> units = asList(json, "string value");
        char[] chars = new char[units.size()];
        for (int i = 0; i < chars.length; i++) {
            Object unit = units.get(i);
            if (!(unit instanceof Long) || (Long) unit < 0 || (Long) unit > 0xFFFF) {
                throw new Invalid("a UTF-16 code unit must be 0..65535");
            }
            chars[i] = (char) (long) (Long) unit;
        }
        return new String(chars);
    }

    /**
     * {@code value} for a parameter, field or element of type {@code target}:
     * primitives widen as in Java (int to long, char to int, ...), references
     * must be instances (or null).
     */
    static Object convert(Object value, Class<?> target, String what) throws Invalid {
        if (!target.isPrimitive()) {
            if (value == null || target.isInstance(value)) {
                return value;
            }
            throw new Invalid(what + " must be a " + target.getName() + ", not " + describe(value));
        }
        if (value != null) {
            Object widened = widen(value, target);
            if (widened != null) {
                return widened;
            }
        }
        throw new Invalid(what + " must be a " + target.getName() + ", not " + describe(value));
    }

    private static Object widen(Object v, Class<?> target) {
        Class<?> from = v.getClass();
        if (target == boolean.class) {
            return from == Boolean.class ? v : null;
        }
        if (target == char.class) {
            return from == Character.class ? v : null;
        }
        // The numeric widening order byte < short < int < long < float < double; char widens to int.
        int rank = rank(from);
        if (rank < 0) {
            return null;
        }
        long integral = 0;
        if (from == Character.class) {
            integral = (Character) v;
        } else if (rank <= 3) {
            integral = ((Number) v).longValue();
        }
        if (target == byte.class) {
            return rank == 0 ? v : null;
        } else if (target == short.class) {
            return rank <= 1 && from != Character.class ? (Object) (short) integral : null;
        } else if (target == int.class) {
            return rank <= 2 ? (Object) (int) integral : null;
        } else if (target == long.class) {
            return rank <= 3 ? (Object) integral : null;
        } else if (target == float.class) {
            return rank <= 3 ? (Object) (float) integral : rank == 4 ? v : null;
        } else {
            return rank <= 3 ? (Object) (double) integral : ((Number) v).doubleValue();
        }
    }

    private static int rank(Class<?> box) {
        if (box == Byte.class) return 0;
        if (box == Short.class) return 1;
        if (box == Character.class || box == Integer.class) return 2;
        if (box == Long.class) return 3;
        if (box == Float.class) return 4;
        if (box == Double.class) return 5;
        return -1;
    }

    private static String describe(Object value) {
        return value == null ? "null" : value.getClass().getName();
    }

    // JSON fields.

    private static String string(Map<?, ?> map, String key) throws Invalid {
        Object value = map.get(key);
        if (!(value instanceof String)) {
            throw new Invalid("\"" + key + "\" must be a string");
        }
        return (String) value;
    }

    private static long integer(Map<?, ?> map, String key, long min, long max) throws Invalid {
        Object value = map.get(key);
        if (!(value instanceof Long) || (Long) value < min || (Long) value > max) {
            throw new Invalid("\"" + key + "\" must be an integer in " + min + ".." + max);
        }
        return (Long) value;
    }

    private static int intField(Map<?, ?> map, String key) throws Invalid {
        return (int) integer(map, key, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    /** IEEE bits: unsigned in JSON, so a double's may exceed Long.MAX_VALUE. */
    private static long bits(Map<?, ?> map, long mask) throws Invalid {
        Object value = map.get("bits");
        if (value instanceof Long && (Long) value >= 0 && ((Long) value & ~mask) == 0) {
            return (Long) value;
        }
        if (value instanceof BigInteger && mask == -1L && ((BigInteger) value).signum() >= 0
                && ((BigInteger) value).bitLength() <= 64) {
            return ((BigInteger) value).longValue();
        }
        throw new Invalid("\"bits\" must be an unsigned integer of the value's width");
    }

    private static List<?> asList(Object value, String what) throws Invalid {
        if (!(value instanceof List)) {
            throw new Invalid(what + " must be an array");
        }
        return (List<?>) value;
    }
}
