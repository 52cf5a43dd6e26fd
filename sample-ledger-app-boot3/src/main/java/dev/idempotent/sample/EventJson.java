package dev.idempotent.sample;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.springframework.kafka.support.JacksonUtils;
import org.springframework.kafka.support.converter.JsonMessageConverter;
import org.springframework.kafka.support.converter.RecordMessageConverter;

/**
 * The sample's events as JSON, with the Jackson generation of its Spring Boot line: Jackson 2 on Spring Boot 3.
 */
final class EventJson {

	private static final ObjectMapper MAPPER = JacksonUtils.enhancedObjectMapper();

	private EventJson() {
	}

	/** The converter of JSON record values to the listener's parameter type. */
	static RecordMessageConverter messageConverter() {
		return new JsonMessageConverter();
	}

	static String write(Object event) {
		try {
			return MAPPER.writeValueAsString(event);
		}
		catch (JsonProcessingException ex) {
			throw new IllegalArgumentException("Cannot write " + event + " as JSON", ex);
		}
	}

}
