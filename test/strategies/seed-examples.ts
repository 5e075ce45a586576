/**
 * Seed 002's own YAML examples, field for field and value for value. The seed's text lost its
 * indentation when it was captured, so each block is re-indented here (keys, values, order and
 * comments unchanged); the helpers parse them with the `yaml` package as a user's file would be.
 */
import { parse } from 'yaml';

export const DEV_TEAM = ['Planner', 'Developer', 'Tester', 'Reviewer'];

/** "keyword" example. */
export const KEYWORD_YAML = `
Selection:
  Type: keyword
  DefaultAgent: Planner
  Routes:
    - Keyword: "HANDOFF TO DEVELOPER"
      Agent: Developer
      Validator: RequireBrief
      SourceAgents:
        - Planner
    - Keyword: "HANDOFF TO TESTER"
      Agent: Tester
      Validators:
        - RequireWriteFile
        - RequireShellPass
      RequiredCommandPattern: "go build|go test"
      SourceAgents:
        - Developer
    - Keyword: "HANDOFF TO REVIEWER"
      Agent: Reviewer
      Validator: TestReportValid
      SourceAgents:
        - Tester
    - Keyword: BUGS FOUND
      Agent: Developer
      SourceAgents:
        - Tester
    - Keyword: REVISION REQUIRED
      Agent: Developer
      SourceAgents:
        - Reviewer
    - Keyword: REPLAN REQUIRED
      Agent: Planner
      SourceAgents:
        - Reviewer
    - Keyword: APPROVED
      Agent: Reviewer
      Validators:
        - RequireShellPass
        - RequireReviewJudgement
      SourceAgents:
        - Reviewer
`;

/** "Phase-break keywords" route snippet (one entry of Routes). */
export const APPROVED_ROUTE_YAML = `
- Keyword: APPROVED
  Agent: Reviewer
  SourceAgents:
    - Reviewer
  Validators:
    - RequireShellPass
    - RequireReviewJudgement
`;

export const STRUCTURED_AGENTS = ['Drafter', 'Reviewer', 'Publisher'];
/** "structured" example. */
export const STRUCTURED_YAML = `
Selection:
  Type: structured
  DefaultAgent: Drafter
  StructuredRoutes:
    - Agent: Reviewer
      Condition:
        Field: draft_content
        Exists: true
      SourceAgents:
        - Drafter
    - Agent: Publisher
      Condition:
        Field: review_result
        Is: "Yes"
      SourceAgents:
        - Reviewer
    - Agent: Drafter
      Condition:
        Field: review_result
        Is: "No"
      SourceAgents:
        - Reviewer
`;

/** "Termination with structured routing". */
export const STRUCTURED_TERMINATION_YAML = `
Termination:
  Type: composite
  Strategies:
    - Type: regex
      Pattern: PUBLISHED
      AgentNames:
        - Publisher
    - Type: maxiterations
      MaxIterations: 15
`;

/** "statemachine" example. */
export const STATEMACHINE_YAML = `
Selection:
  Type: statemachine
  StateMachine:
    Initial: Planning
    States:
      Planning:
        Agent: Planner
        Transitions:
          - To: Implementation
            Signal: "HANDOFF TO DEVELOPER"
            Contract: BriefExists
      Implementation:
        Agent: Developer
        Transitions:
          - To: Testing
            Signal: "HANDOFF TO TESTER"
            Contract: ImplementationComplete
      Testing:
        Agent: Tester
        Transitions:
          - To: Review
            Signal: "HANDOFF TO REVIEWER"
            Contract: TestsValid
          - To: Implementation
            Signal: BUGS FOUND
      Review:
        Agent: Reviewer
        Transitions:
          - To: Done
            Signal: APPROVED
          - To: Implementation
            Signal: REVISION REQUIRED
      Done:
        Agent: Reviewer
        Terminal: true
`;

/** "Contracts on transitions" example (an Orchestration block). */
export const CONTRACTS_YAML = `
Orchestration:
  Contracts:
    - Name: ImplementationComplete
      Requires:
        - FilesWritten:
            Source: .fuseraft/artifacts/brief.json
            Field: files_to_change
        - CommandSucceeded:
            PatternField: "verify_command" # reads the verify command from brief.json
  Selection:
    Type: statemachine
    StateMachine:
      Initial: Implementation
      States:
        Implementation:
          Agent: Developer
          Transitions:
            - To: Testing
              Signal: "HANDOFF TO TESTER"
              Contract: ImplementationComplete
`;

export const PARALLEL_AGENTS = ['Planner', 'BackendDev', 'FrontendDev', 'MigrationDev', 'Integrator'];
/** "Parallel fan-out / fan-in" example. */
export const PARALLEL_YAML = `
Selection:
  Type: statemachine
  StateMachine:
    Initial: Planning
    States:
      Planning:
        Agent: Planner
        Transitions:
          - To: Integration # join state — entered after all branches finish
            Targets: # branch states — run concurrently
              - BackendWork
              - FrontendWork
              - MigrationWork
            Parallel: true
            Signal: "IMPLEMENT"
            Merge:
              Strategy: union # concatenate outputs in declaration order
      BackendWork:
        Agent: BackendDev
        # No transitions — branch agents run one turn; signals are not evaluated.
      FrontendWork:
        Agent: FrontendDev
      MigrationWork:
        Agent: MigrationDev
      Integration:
        Agent: Integrator
        Transitions:
          - To: Done
            Signal: APPROVED
      Done:
        Agent: Integrator
        Terminal: true
`;

/** "HandoffContext" example (one state of a StateMachine). */
export const HANDOFF_CONTEXT_STATE_YAML = `
Implementation:
  Agent: Developer
  Transitions:
    - To: Testing
      Signal: "HANDOFF TO TESTER"
      Contract: ImplementationComplete
      HandoffContext: # inject targeted artifacts when transition fires
        - Source: session_context
        - Source: changes_recent
        - Source: brief_field:test_targets
`;

/** "graph" example. */
export const GRAPH_YAML = `
Selection:
  Type: graph
  Graph:
    EntryNode: planner
    Nodes:
      - Id: planner
        Agent: Planner
      - Id: developer
        Agent: Developer
      - Id: tester
        Agent: Tester
      - Id: reviewer
        Agent: Reviewer
      - Id: approved
        Agent: Reviewer
        Terminal: true
    Edges:
      - From: planner
        To: developer
        Keyword: "HANDOFF TO DEVELOPER"
        Validators:
          - RequireBrief
      - From: developer
        To: tester
        Keyword: "HANDOFF TO TESTER"
        Validators:
          - RequireWriteFile
          - RequireShellPass
      - From: developer
        To: planner
        Keyword: REPLAN REQUIRED
      - From: tester
        To: reviewer
        Keyword: "HANDOFF TO REVIEWER"
        Validators:
          - TestReportValid
      - From: tester
        To: developer
        Keyword: BUGS FOUND
      - From: reviewer
        To: approved
        Keyword: APPROVED
        Validators:
          - RequireReviewJudgement
      - From: reviewer
        To: developer
        Keyword: REVISION REQUIRED
`;

/** "Multi-target back-edges" fragment (Nodes and Edges of a larger graph). */
export const MULTI_TARGET_FRAGMENT_YAML = `
Nodes:
  - Id: reviewer
    Agent: Reviewer
  - Id: approved
    Agent: Reviewer
    Terminal: true
Edges:
  - From: reviewer
    To: approved
    Keyword: APPROVED
    Validators:
      - RequireReviewJudgement
  - From: reviewer
    To: developer
    Keyword: REVISION REQUIRED # back-edge → developer
  - From: reviewer
    To: planner
    Keyword: REPLAN REQUIRED # back-edge → planner (different target)
`;

export const SUBGRAPH_AGENTS = ['Writer', 'DataGatherer', 'Analyst', 'TaskSplitter', 'Synthesizer', 'LegalReviewer', 'TechnicalReviewer', 'BusinessReviewer', 'LeadReviewer'];
/** "Graph sub-graph". */
export const SUBGRAPH_GRAPH_YAML = `
Selection:
  Type: graph
  Graph:
    EntryNode: research_phase
    Nodes:
      - Id: research_phase
        SubGraphId: research_team # runs a nested GraphOrchestrator
      - Id: writer
        Agent: Writer
        Terminal: true
    Edges:
      - From: research_phase
        To: writer
        Keyword: "RESEARCH COMPLETE"
    SubGraphs:
      research_team:
        Graph: # <-- "Graph:" wraps the GraphConfig
          EntryNode: gatherer
          Nodes:
            - Id: gatherer
              Agent: DataGatherer
            - Id: analyst
              Agent: Analyst
              Terminal: true
          Edges:
            - From: gatherer
              To: analyst
              Keyword: "DATA READY"
`;

/** "Map-reduce sub-graph". */
export const SUBGRAPH_MAPREDUCE_YAML = `
Selection:
  Type: graph
  Graph:
    EntryNode: parallel_analysis
    Nodes:
      - Id: parallel_analysis
        SubGraphId: item_processor # runs a nested MapReduceOrchestrator
      - Id: writer
        Agent: Writer
        Terminal: true
    Edges:
      - From: parallel_analysis
        To: writer
        Keyword: "ANALYSIS COMPLETE"
    SubGraphs:
      item_processor:
        MapReduce: # <-- "MapReduce:" wraps the MapReduceConfig
          Splitter: TaskSplitter
          Mapper: Analyst
          Reducer: Synthesizer
          ItemsJsonPath: tasks
          MaxConcurrency: 4
`;

/** "Scatter-gather sub-graph". */
export const SUBGRAPH_SCATTER_YAML = `
Selection:
  Type: graph
  Graph:
    EntryNode: expert_review
    Nodes:
      - Id: expert_review
        SubGraphId: multi_expert # runs a nested ScatterGatherOrchestrator
      - Id: writer
        Agent: Writer
        Terminal: true
    Edges:
      - From: expert_review
        To: writer
        Keyword: "REVIEW COMPLETE"
    SubGraphs:
      multi_expert:
        ScatterGather: # <-- "ScatterGather:" wraps the ScatterGatherConfig
          Participants:
            - LegalReviewer
            - TechnicalReviewer
            - BusinessReviewer
          Synthesizer: LeadReviewer
`;

/** "scattergather" example. */
export const SCATTERGATHER_YAML = `
Selection:
  Type: scattergather
  ScatterGather:
    Participants:
      - LegalReviewer
      - TechnicalReviewer
      - BusinessReviewer
    Synthesizer: LeadReviewer
    MaxConcurrency: 0 # 0 = unlimited; all participants run simultaneously
`;

/** "mapreduce" example. */
export const MAPREDUCE_YAML = `
Selection:
  Type: mapreduce
  MapReduce:
    Splitter: Splitter
    Mapper: Mapper
    Reducer: Reducer
    ItemsJsonPath: items # dot-path to the array inside the splitter's JSON response
    MaxConcurrency: 4 # 0 = unlimited
    MaxSplitterRetries: 3
`;

/** "llm" example. */
export const LLM_YAML = `
Selection:
  Type: llm
  Model:
    ModelId: gpt-4o-mini
  Prompt: |
    You are an orchestrator. Given the agents: {{$agents}}
    And the conversation:
    {{$history}}
    Which agent should respond next? Reply with only the agent name.
`;

/** "magentic" example. */
export const MAGENTIC_YAML = `
Selection:
  Type: magentic
  Magentic:
    Model:
      ModelId: gpt-4o
    MaxRoundCount: 20
    MaxStallCount: 3
    MaxResetCount: 2
    EnablePlanReview: false
`;

/** "adversarial" example. */
export const ADVERSARIAL_YAML = `
Selection:
  Type: adversarial
  Adversarial:
    Rounds: 3 # critique rounds per stage (generator gets Rounds-1 revision opportunities)
    PassKeyword: "APPROVED"
    Stages:
      - Generator: Planner
        Critic: PlanReviewer
        Label: Planning
      - Generator: Developer
        Critic: CodeReviewer
        Label: Implementation
`;

/** "composite" termination example. */
export const COMPOSITE_TERMINATION_YAML = `
Termination:
  Type: composite
  MaxIterations: 40
  Strategies:
    - Type: regex
      Pattern: \\bAPPROVED\\b
      AgentNames:
        - Reviewer
    - Type: maxiterations
      MaxIterations: 40
`;

export const load = (src: string): any => parse(src);
