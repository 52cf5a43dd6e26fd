package dev.idempotent.aot;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.idempotent.kafka.IdempotentListener;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Registers the runtime hints of each bean with {@link IdempotentListener} methods: the methods themselves (invoked,
 * and read for their annotation, through the proxy the library's post-processor puts around the bean; Spring AOT
 * generates that proxy's class at build time), and the public methods of their parameter types, which key
 * expressions such as {@code #payload.orderId} read reflectively. Types of the JDK are left out. Registered through
 * {@code META-INF/spring/aot.factories}; used only during AOT processing.
 *
 * @since 0.1.0
 */
public class IdempotentListenerAotProcessor implements BeanRegistrationAotProcessor {

	@Override
	public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
		Class<?> beanClass = ClassUtils.getUserClass(registeredBean.getBeanClass());
		List<Method> methods = new ArrayList<>();
		ReflectionUtils.doWithMethods(beanClass, methods::add,
				(method) -> AnnotatedElementUtils.hasAnnotation(method, IdempotentListener.class));
		if (methods.isEmpty()) {
			return null;
		}
		return (generationContext, code) -> register(generationContext.getRuntimeHints(), methods);
	}

	private static void register(RuntimeHints hints, List<Method> methods) {
		Set<Class<?>> parameterTypes = new LinkedHashSet<>();
		for (Method method : methods) {
			hints.reflection().registerMethod(method, ExecutableMode.INVOKE);
			for (Class<?> type : method.getParameterTypes()) {
				if (!type.isPrimitive() && !type.isArray() && !type.getName().startsWith("java.")) {
					parameterTypes.add(type);
				}
			}
		}
		parameterTypes.forEach((type) -> hints.reflection().registerType(type, MemberCategory.INVOKE_PUBLIC_METHODS));
	}

}
