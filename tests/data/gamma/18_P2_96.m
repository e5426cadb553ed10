Network 18_P2_96 {
Layer L18 {
Type: CONV
Dimensions { K: 3072, C: 768, Y: 128, X: 1, R: 1, S: 1 }
Dataflow {
TemporalMap(1,1) R;
SpatialMap(1,1) K;
TemporalMap(73,73) Y';
TemporalMap(1,1) X';
TemporalMap(1,1) S;
TemporalMap(165,165) C;
Cluster(1,P);
TemporalMap(1,1) K;
TemporalMap(1,1) S;
TemporalMap(1,1) R;
TemporalMap(69,69) Y';
SpatialMap(1,1) X';
TemporalMap(1,1) C;
}
}
}
