package dev.idempotent.sample;

import tools.jackson.databind.json.JsonMapper;

import org.springframework.kafka.support.converter.JacksonJsonMessageConverter;
import org.springframework.kafka.support.converter.RecordMessageConverter;

/**
 * The sample's events as JSON, with the Jackson generation of its Spring Boot line: Jackson 3 on Spring Boot 4.
 */
final class EventJson {

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	private EventJson() {
	}

	/** The converter of JSON record values to the listener's parameter type. */
	static RecordMessageConverter messageConverter() {
		return new JacksonJsonMessageConverter();
	}

	static String write(Object event) {
		return MAPPER.writeValueAsString(event);
	}

}
